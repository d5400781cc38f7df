import Foundation
import TestSupport
import Testing

/// `Tools/package` (issue 29): the .deb is built from this build's binary
/// (the Swift runtime linked statically, as the release build does),
/// `lintian` accepts it with no error or warning, and in a throwaway Debian
/// root made by `mmdebstrap` (never the machine's own root) it installs, runs
/// (`--version`, and `chatcli serve` answering `/healthz` the way the unit
/// starts it), is not enabled as a service, and purges without leftovers.
@Suite(.ownThreadFirst, .enabled(if: PackagingTools.present, "mmdebstrap, lintian or dpkg-dev is missing (Tools/test installs them)"),
       .disabled(if: Sanitizers.any, "the .deb ships the release binary, with the Swift runtime linked in; a sanitized build is neither"))
struct PackageTests {
    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 300) throws -> Finished {
        let p = try ChildProcess(executable, arguments, name: (executable as NSString).lastPathComponent)
        p.closeInput()
        let status = p.waitForExit(timeout: timeout)
        return Finished(status: status, stdout: p.stdout, stderr: p.stderr, transcript: p.transcript)
    }

    /// Every path in the root, but the package manager's own records and logs.
    static func files(in root: String) -> Set<String> {
        let skipped = ["var/lib/dpkg", "var/log", "var/cache", "var/lib/apt", "tmp", "proc", "dev", "sys", "run"]
        var paths: Set<String> = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let path = enumerator?.nextObject() as? String {
            if skipped.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) {
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + path)) == nil { enumerator?.skipDescendants() }
                continue
            }
            paths.insert(path)
        }
        return paths
    }

    @Test func theDebIsLintCleanAndInstallsRunsAndPurgesInAThrowawayRoot() throws {
        let dir = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let built = try Self.run(Harness.packageRoot + "/Tools/package", ["--binary", Harness.chatcliPath, "--output", dir, "--fast"])
        #expect(built.status == 0, "\(built.transcript)")
        let deb = try #require(built.stdout.last.flatMap { $0.hasSuffix(".deb") ? $0 : nil }, "\(built.transcript)")
        #expect((deb as NSString).lastPathComponent.range(of: #"^chatcli_\d+\.\d+\.\d+_amd64\.deb$"#, options: .regularExpression) != nil)

        let lint = try Self.run("/usr/bin/lintian", ["--fail-on", "error,warning", deb])
        #expect(lint.status == 0, "lintian: \(lint.transcript)")
        #expect(!(lint.stdout + lint.stderr).contains { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }, "\(lint.transcript)")

        // What it needs, from its own Depends (as apt would resolve it).
        let info = try Self.run("/usr/bin/dpkg-deb", ["--field", deb, "Depends"])
        let depends = info.stdout.joined(separator: " ").split(separator: ",").map {
            String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != " " && $0 != "(" })
        }
        #expect(depends.contains("libsodium23") && depends.contains("libssl3"), "\(info.transcript)")
        #expect(!depends.contains { $0.hasPrefix("libswift") }, "the Swift runtime is linked in: \(depends)")

        let root = dir + "/root"
        let strap = try Self.run("/usr/bin/mmdebstrap", ["--variant=essential", "--include=" + depends.joined(separator: ","), "bookworm", root],
                                 timeout: 600)
        #expect(strap.status == 0, "\(strap.transcript)")
        let before = Self.files(in: root)
        try FileManager.default.copyItem(atPath: deb, toPath: root + "/tmp/chatcli.deb")

        // In the root, with a /proc (Swift reads its arguments there) mounted in a mount
        // namespace of its own, so it goes with the command. No fork: signals reach chatcli.
        func inRoot(_ command: [String]) -> [String] {
            ["--mount-proc=\(root)/proc", "/usr/sbin/chroot", root] + command
        }
        let install = try Self.run("/usr/bin/unshare", inRoot(["dpkg", "-i", "/tmp/chatcli.deb"]))
        #expect(install.status == 0, "\(install.transcript)")
        let version = try Self.run("/usr/bin/unshare", inRoot(["chatcli", "--version"]))
        #expect(version.status == 0 && version.stdout.first?.hasPrefix("chatcli ") == true, "\(version.transcript)")
        for path in ["usr/share/man/man1/chatcli.1.gz", "usr/share/bash-completion/completions/chatcli",
                     "usr/share/zsh/vendor-completions/_chatcli", "lib/systemd/system/chatcli.service"] {
            #expect(FileManager.default.fileExists(atPath: root + "/" + path), "\(path) is installed")
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/etc/systemd/system/multi-user.target.wants/chatcli.service"),
                "the unit is not enabled on install")
        let unit = try String(contentsOfFile: root + "/lib/systemd/system/chatcli.service", encoding: .utf8)
        for line in ["DynamicUser=yes", "StateDirectory=chatcli", "ProtectSystem=strict", "NoNewPrivileges=yes"] {
            #expect(unit.contains(line), "the unit is hardened: \(line)")
        }

        // `chatcli serve` as the unit starts it (its StateDirectory made first, as systemd does).
        try FileManager.default.createDirectory(atPath: root + "/var/lib/chatcli", withIntermediateDirectories: true)
        let port = Harness.freePort()
        let stun = Harness.freePort(udpPair: true)
        let serve = try ChildProcess("/usr/bin/unshare", inRoot(["chatcli", "serve", "--host", "127.0.0.1", "--port", String(port),
                                                                "--stun-port", String(stun), "--db", "/var/lib/chatcli/rooms.db"]), name: "serve")
        defer { if serve.waitForExit(timeout: 0) == nil { serve.signal(SIGKILL) } }
        #expect(serve.waitForLine(stderr: true, timeout: 30) { $0.contains("event=listening") } != nil, "\(serve.transcript)")
        let health = HTTPExchange.send("GET", port: port, "/healthz", raw: nil)
        #expect(health.status == 200, "\(health)")
        serve.signal(SIGTERM)
        #expect(serve.waitForExit(timeout: 15) != nil, "\(serve.transcript)")
        #expect(FileManager.default.fileExists(atPath: root + "/var/lib/chatcli/rooms.db"))

        let purge = try Self.run("/usr/bin/unshare", inRoot(["dpkg", "--purge", "chatcli"]))
        #expect(purge.status == 0, "\(purge.transcript)")
        try? FileManager.default.removeItem(atPath: root + "/tmp/chatcli.deb")
        let after = Self.files(in: root)
        #expect(after.subtracting(before).isEmpty, "left behind: \(after.subtracting(before).sorted())")
        #expect(before.subtracting(after).isEmpty, "removed what was not its own: \(before.subtracting(after).sorted())")
    }
}

enum PackagingTools {
    static var present: Bool {
        ["mmdebstrap", "lintian", "dpkg-shlibdeps"].allSatisfy { InstallTests.which($0) != nil }
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/chroot")
    }
}
