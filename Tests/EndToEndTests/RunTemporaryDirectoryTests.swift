import Foundation
import TestSupport
import Testing

/// `Tools/test` gives its run a temp dir of its own (`use_private_tmpdir` in
/// Tools/lib/setup.sh) and removes it when the run ends, normally or by a
/// signal; a directory left by a run killed outright is removed by the next
/// run, one whose run is still going is not.
@Suite(.ownThreadFirst) struct RunTemporaryDirectoryTests {
    /// Runs `use_private_tmpdir` in a bash under `base`, puts a file in the run's
    /// directory, then `ending` (a shell command); the directory it printed and the status.
    static func run(in base: String, ending: String) throws -> (dir: String, status: Int32?) {
        let script = """
            source "$1/Tools/lib/setup.sh"
            use_private_tmpdir
            echo "$TMPDIR"
            mkdir -p "$TMPDIR/e2e" && head -c 100000 /dev/zero > "$TMPDIR/e2e/big.bin"
            \(ending)
            """
        // The test runner's threads block most signals and its children inherit that: perl
        // (in Debian's base system) unblocks them before it becomes the bash, as a shell's child.
        let unblocked = "use POSIX; sigprocmask(SIG_SETMASK, POSIX::SigSet->new); exec @ARGV or die"
        let result = try InstallTests.run("/usr/bin/perl", ["-e", unblocked, "/bin/bash", "-c", script, "bash", Harness.packageRoot],
                                          environment: ["TMPDIR": base])
        return (result.stdout.first ?? "", result.status)
    }

    @Test func theRunsDirectoryIsGoneAfterItEndsOrIsStoppedAndOnlyDeadRunsAreSweptUp() throws {
        let base = Harness.temporaryDirectory()
        defer { Harness.remove(base) }
        // pid_max is at most 2^22: no process has this one.
        let dead = base + "/chatcli-run.4194305"
        let live = base + "/chatcli-run.\(getpid())"
        for dir in [dead, live] { try FileManager.default.createDirectory(atPath: dir + "/x", withIntermediateDirectories: true) }

        let ended = try Self.run(in: base, ending: "true")
        #expect(ended.status == 0)
        #expect(ended.dir.hasPrefix(base + "/chatcli-run."), "\(ended.dir)")
        #expect(!FileManager.default.fileExists(atPath: ended.dir), "removed when the run ended")
        #expect(!FileManager.default.fileExists(atPath: dead), "a killed run's directory is swept up")
        #expect(FileManager.default.fileExists(atPath: live + "/x"), "a running run's directory is left alone")

        let stopped = try Self.run(in: base, ending: "kill -TERM $$; sleep 5")
        #expect(stopped.status == 143)
        #expect(stopped.dir.hasPrefix(base + "/chatcli-run."), "\(stopped.dir)")
        #expect(!FileManager.default.fileExists(atPath: stopped.dir), "removed when the run was stopped")
    }
}
