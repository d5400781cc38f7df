import Foundation
import TestSupport
import Testing

/// chatcli never hangs: an unknown host is one sentence and exit 1 within
/// 10 s; SIGTERM (143) and SIGINT (130) end it (the time taken is printed) in every
/// phase, even when the server or the peer stops answering.
@Suite(.ownThread, .serialized) struct NeverStuckTests {
    @Test(arguments: [["join", "123456"], ["create"], ["doctor"]])
    func anUnknownHostIsOneSentenceAndExit1(command: [String]) throws {
        let p = try ChildProcess.chatcli(command + ["--server", "http://nonexistent.invalid:8080", "--no-store"].filter {
            command[0] != "doctor" || $0 != "--no-store"
        }, name: command[0])
        p.closeInput()
        let status = p.waitForExit(timeout: 10)
        #expect(status == 1, "exits 1 within 10 s\n\(p.transcript)")
        let sentences = p.stderr.filter { $0.contains("nonexistent.invalid") }
        #expect(sentences.count == 1, "\(p.transcript)")
    }

    /// A server that accepts connections and never answers.
    final class SilentServer {
        let fd: Int32
        let port: UInt16
        init() {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            port = Harness.freePort()
            _ = Harness.withLoopback(port: port) { bind(fd, $0, $1) }
            listen(fd, 16)
        }
        deinit { close(fd) }
    }

    /// Ends with the signal's status. That it ends within `interruptLimit`
    /// in every phase is ChatSessionTests' to prove, on a manual clock; here
    /// a busy machine may take longer, so the time is printed, not judged.
    func expectPromptExit(_ p: ChildProcess, _ signal: Int32, phase: String) {
        let sent = Date()
        p.signal(signal)
        let status = p.waitForExit(timeout: 10)
        let took = Date().timeIntervalSince(sent)
        #expect(status == 128 + signal, "\(phase): exit status\n\(p.transcript)")
        print("chatcli \(phase): signal \(signal) ended it after \(String(format: "%.2f", took)) s")
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalEndsItWhileTheServerDoesNotAnswer(signal: Int32) throws {
        let silent = SilentServer()
        let p = try ChildProcess.chatcli(["join", "123456", "--server", "http://127.0.0.1:\(silent.port)", "--json", "--no-store"],
                                         name: "join")
        Thread.sleep(forTimeInterval: 0.5)   // it is connected and waiting for an answer that never comes
        expectPromptExit(p, signal, phase: "connecting to the server")
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalEndsItWhileWaitingForThePeer(signal: Int32) throws {
        let server = try ServerProcess()
        let p = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--no-store"], name: "create")
        #expect(p.waitForEvent("waiting", timeout: 20) != nil, "\(p.transcript)")
        expectPromptExit(p, signal, phase: "waiting for the peer")
    }

    /// The peer joined the room but never answers the offer (ICE/DTLS never start).
    @Test func sigtermEndsItWhileConnectingToAPeerThatNeverAnswers() throws {
        let server = try ServerProcess()
        let p = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--no-store"], name: "create")
        let code = try #require(p.waitForEvent("code", timeout: 20)?["locator"] as? String)   // the mute peer only knows the digits
        let mute = try ChildProcess(Harness.pythonPath, ["-c", Self.mutePeer, "127.0.0.1:\(server.port)", code], name: "mute peer")
        #expect(p.waitForEvent("peer_joined", timeout: 20) != nil, "\(p.transcript)\n\(mute.transcript)")
        Thread.sleep(forTimeInterval: 0.3)
        expectPromptExit(p, SIGTERM, phase: "negotiating with a silent peer")
        mute.signal(SIGKILL)   // it inherits the runner's blocked SIGTERM
        _ = mute.waitForExit()
    }

    @Test func sigtermEndsItWhileChatting() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--no-store"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String)
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--no-store"], name: "bob")
        #expect(alice.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)")
        expectPromptExit(alice, SIGTERM, phase: "chatting")
        #expect(bob.waitForEvent("peer_left", timeout: 10) != nil, "\(bob.transcript)")
        bob.closeInput()
        _ = bob.waitForExit()
    }

    /// Accepts the code over REST and sits in the room, answering nothing.
    static let mutePeer = #"""
    import asyncio, json, sys, urllib.request
    import websockets
    host, code = sys.argv[1], sys.argv[2]
    body = json.dumps({"joinid": code, "client2": "mutepeer-0123456789"}).encode()
    req = urllib.request.Request(f"http://{host}/api/rooms/accept", body, {"Content-Type": "application/json"})
    room = json.load(urllib.request.urlopen(req))["roomid"]
    async def main():
        async with websockets.connect(f"ws://{host}/ws") as ws:
            await ws.send(json.dumps({"type": "join_room", "roomId": room}))
            while True:
                await ws.recv()
    asyncio.run(main())
    """#
}
