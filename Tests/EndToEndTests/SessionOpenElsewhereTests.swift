import Foundation
import TestSupport
import Testing

/// A saved session is open in one chatcli at a time: a `resume` of a
/// session that another process has open (by `create`, `join` or `resume`)
/// is refused at once with a sentence that names it and the other pid.
@Suite(.ownThread) struct SessionOpenElsewhereTests {
    func refused(_ home: StoreHome, _ name: String, holder: ChildProcess) throws {
        // The holder keeps the session open throughout, so a second process
        // that waited for it instead of refusing would never exit.
        let second = try home.run(["resume", name, "--json"])
        #expect(second.status == 1, "\(second.transcript)")
        #expect(second.stderr == ["chatcli: session \"\(name)\" is open in another chatcli (pid \(holder.pid)); "
                                  + "continue it there, or end that one first"], "\(second.transcript)")
        #expect(second.stdout.isEmpty, "no event, no room touched: \(second.transcript)")
    }

    @Test func aSecondResumeIsRefusedWhileTheFirstRunsAndAllowedAfterIt() throws {
        let server = try ServerProcess()
        let home = StoreHome()
        let creator = try home.chatcli(["create", "--server", server.url, "--json"], name: "creator")
        let code = try #require(creator.waitForEvent("code", timeout: 20)?["locator"] as? String, "\(creator.transcript)")
        #expect(creator.waitForEvent("waiting") != nil, "\(creator.transcript)")
        // The creator itself holds its session once the record is written.
        try refused(home, code, holder: creator)
        creator.signal(SIGINT)
        #expect(creator.waitForExit() == 130, "\(creator.transcript)")

        let first = try home.chatcli(["resume", code, "--json"], name: "first resume")
        #expect(first.waitForEvent("waiting", timeout: 20) != nil, "\(first.transcript)")
        try refused(home, code, holder: first)
        // Renaming does not free it: the lock follows the session, not its name.
        let renamed = try home.run(["sessions", "rename", code, "work"])
        #expect(renamed.status == 0, "\(renamed.transcript)")
        try refused(home, "work", holder: first)

        first.signal(SIGINT)
        #expect(first.waitForExit() == 130, "\(first.transcript)")
        let again = try home.chatcli(["resume", "work", "--json"], name: "after the first ended")
        #expect(again.waitForEvent("waiting", timeout: 20) != nil, "the lock ends with its process: \(again.transcript)")
        again.signal(SIGINT)
        #expect(again.waitForExit() == 130, "\(again.transcript)")
    }

    @Test func theLockFilesNameNeitherTheSessionNorItsCode() throws {
        let server = try ServerProcess()
        let home = StoreHome()
        let creator = try home.chatcli(["create", "--server", server.url, "--json", "--name", "secret plans"], name: "creator")
        let code = try #require(creator.waitForEvent("code", timeout: 20)?["code"] as? String, "\(creator.transcript)")
        #expect(creator.waitForEvent("waiting") != nil, "\(creator.transcript)")
        let locks = home.dataHome + "/chatcli/locks"
        let files = try FileManager.default.contentsOfDirectory(atPath: locks)
        #expect(files.count == 1 && files[0].range(of: #"^[0-9a-f]{32}\.lock$"#, options: .regularExpression) != nil, "\(files)")
        let contents = try String(contentsOfFile: locks + "/" + files[0], encoding: .utf8)
        #expect(contents == "\(creator.pid)\n")
        for secret in [code, "secret plans"] { #expect(!files[0].contains(secret) && !contents.contains(secret)) }
        creator.signal(SIGINT)
        #expect(creator.waitForExit() == 130, "\(creator.transcript)")
    }
}
