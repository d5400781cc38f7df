import Foundation
import TestSupport
import Testing

/// `Tools/demo`, the README's first command: a server and two peers pair by
/// the whole code, are verified by it, chat both ways and leave; exit 0.
/// (CHATCLI_BIN: the binary under test, so the demo does not build.)
@Suite(.ownThread) struct DemoTests {
    @Test func theDemoPairsByCodeChatsAndEnds() throws {
        let demo = try ChildProcess("/usr/bin/env", ["CHATCLI_BIN=\(Harness.chatcliPath)", Harness.packageRoot + "/Tools/demo"], name: "demo")
        demo.closeInput()
        #expect(demo.waitForExit(timeout: 120) == 0, "\(demo.transcript)")
        let out = demo.stdout
        #expect(out.contains { $0.hasPrefix("==> bob: chatcli join ") && $0.contains("-") }, "\(demo.transcript)")
        #expect(out.filter { $0.contains("verified by code") }.count == 2, "\(demo.transcript)")
        #expect(out.contains("[bob] peer: Hello Bob! This line reached you end-to-end encrypted."), "\(demo.transcript)")
        #expect(out.contains("[alice] peer: Hi Alice, this is Bob."), "\(demo.transcript)")
        #expect(out.contains("[alice] Your peer left the chat."), "\(demo.transcript)")
    }
}
