import Foundation
import TestSupport
import Testing

/// `chatcli serve` startup and shutdown through the real binary: a database
/// it cannot open is one sentence and exit 1, the default database lives
/// under the XDG state directory, and signals end it with 128 + the signal.
@Suite(.ownThread) struct ServeTests {
    static func serve(_ extra: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        let args = ["serve", "--host", "127.0.0.1", "--port", "\(Harness.freePort())", "--stun-port", "\(Harness.freePort(udpPair: true))"]
        return try ChildProcess.chatcli(args + extra, name: "server", environment: environment)
    }

    @Test(arguments: [
        ("/nonexistent/dir/x.db", "cannot open the room database /nonexistent/dir/x.db: no such directory"),
        ("/", "cannot open the room database /: it is a directory"),
    ])
    func aDatabaseItCannotOpenIsOneSentence(path: String, sentence: String) throws {
        let p = try Self.serve(["--db", path])
        #expect(p.waitForExit(timeout: 10) == 1, "\(p.transcript)")
        #expect(p.stderr == ["chatcli: " + sentence], "\(p.transcript)")
        #expect(p.stdout.isEmpty)
    }

    @Test func aFileThatIsNotADatabaseIsOneSentence() throws {
        let path = Harness.temporaryDirectory() + "/notes.txt"
        try String(repeating: "not a database\n", count: 100).write(toFile: path, atomically: true, encoding: .utf8)
        let p = try Self.serve(["--db", path])
        #expect(p.waitForExit(timeout: 10) == 1, "\(p.transcript)")
        #expect(p.stderr == ["chatcli: cannot open the room database \(path): file is not a database"], "\(p.transcript)")
    }

    @Test func withoutDbTheRoomsLiveUnderXDGStateHome() throws {
        let state = Harness.temporaryDirectory() + "/state"
        let p = try Self.serve([], environment: ["XDG_STATE_HOME": state])
        let listening = p.waitForLine(stderr: true) { $0.contains("listening") }
        #expect(listening?.contains("\(state)/chatcli/rooms.db") == true, "the log line says where: \(p.transcript)")
        let directory = state + "/chatcli"
        let mode = (try? FileManager.default.attributesOfItem(atPath: directory))?[.posixPermissions] as? Int
        #expect(mode == 0o700, "\(directory) is private")
        #expect(FileManager.default.fileExists(atPath: directory + "/rooms.db"))
        p.signal(SIGTERM)
        #expect(p.waitForExit(timeout: 10) == 143, "\(p.transcript)")
    }

    @Test func withoutDbOrXDGStateHomeTheRoomsLiveUnderHome() throws {
        let home = Harness.temporaryDirectory()
        let p = try Self.serve([], environment: ["XDG_STATE_HOME": "", "HOME": home])
        let listening = p.waitForLine(stderr: true) { $0.contains("listening") }
        #expect(listening?.contains("\(home)/.local/state/chatcli/rooms.db") == true, "\(p.transcript)")
        p.signal(SIGINT)
        #expect(p.waitForExit(timeout: 10) == 130, "\(p.transcript)")
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalEndsItGracefullyWith128PlusTheSignal(signal: Int32, status: Int32) throws {
        let p = try Self.serve(["--db", Harness.temporaryDirectory() + "/rooms.db"])
        #expect(p.waitForLine(stderr: true) { $0.contains("listening") } != nil, "\(p.transcript)")
        p.signal(signal)
        #expect(p.waitForExit(timeout: 10) == status, "\(p.transcript)")
        #expect(p.stderr.contains { $0.contains("shutdown") }, "the graceful shutdown ran first: \(p.transcript)")
    }
}
