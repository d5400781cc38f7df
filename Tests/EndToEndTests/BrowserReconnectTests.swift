import Foundation
import TestSupport
import Testing

/// A chat between chatcli and Chromium survives what chatcli survives: the
/// server restarting mid-chat (both signaling sockets reconnect and rejoin)
/// and the UDP path cut and restored (chatcli, the offerer, restarts ICE and
/// the page answers the restart offer). Nothing typed meanwhile is lost.
@Suite(.ownThread, .serialized, .enabled(if: BrowserLab.available, "needs root, chromium and firefox-esr"))
struct BrowserReconnectTests {
    @Test func theChatGoesOnAcrossAServerRestart() throws {
        let lab = try BrowserLab()
        let (cli, browser) = try Self.chat(in: lab)

        lab.server.stop()
        try lab.startServer()
        // Both signaling sockets come back to the new server and rejoin the room.
        #expect(Self.waitUntil(timeout: 60) { lab.server.stderr.filter { $0.contains("event=ws_open") }.count >= 2 }, "\(lab.server.transcript)")
        cli.write("after the restart\n")
        #expect(try browser.peerMessages(count: 2) == ["before", "after the restart"])
        try browser.send(["page after the restart"])
        #expect(cli.waitForLine(timeout: 30) { $0.contains(#""text":"page after the restart""#) } != nil, "\(cli.transcript)")

        // The page leaves through its new socket: chatcli hears it from the server.
        try browser.click("leave")
        try browser.waitForState("left")
        #expect(cli.waitForEvent("peer_left", timeout: 30) != nil, "\(cli.transcript)")
        #expect(cli.waitForExit(timeout: 30) == 0, "\(cli.transcript)")
    }

    /// Both ways round: chatcli creates (and, its socket in the room first,
    /// makes the connection and restarts it), or the page does, and chatcli
    /// answers the page's restart.
    @Test(arguments: [false, true])
    func aCutPathIsRestoredByAnICERestart(pageCreates: Bool) throws {
        let lab = try BrowserLab()
        let (cli, browser) = try pageCreates ? Self.pageCreatedChat(in: lab) : Self.chat(in: lab)
        // Offers either way: the side whose socket joined the room first (seat 0)
        // made the connection and restarts it; under load that can be the page.
        let offers = {
            cli.stderr.filter { ($0.contains("[session] signaling") || $0.contains("[signaling] message")) && $0.contains("webrtc_offer") }.count
        }
        let offersBefore = offers()

        // Every UDP datagram in the namespace is dropped; signaling (TCP) stays up.
        try lab.iptables(["-A", "INPUT", "-p", "udp", "-j", "DROP"])
        #expect(cli.waitForLine(stderr: true, timeout: 60) { $0.contains("stopped working") } != nil, "\(cli.transcript.suffix(3000))")
        try browser.waitForState("reconnecting", timeout: 60)
        let fromCLI = (0..<10).map { "chatcli during the cut \($0)" }, fromPage = (0..<10).map { "page during the cut \($0)" }
        cli.write(fromCLI.joined(separator: "\n") + "\n")
        try browser.send(fromPage)
        // The side that made the connection restarts ICE (a new offer, new credentials).
        #expect(Self.waitUntil(timeout: 60) { offers() > offersBefore }, "\(cli.transcript.suffix(3000))")
        try lab.iptables(["-D", "INPUT", "-p", "udp", "-j", "DROP"])

        #expect(cli.waitForEvents("connected", count: 2, timeout: 60), "\(cli.transcript.suffix(3000))")
        try browser.waitForState("connected", timeout: 60)
        #expect(try browser.peerMessages(count: 11, timeout: 60) == ["before"] + fromCLI)
        var seen = 0
        _ = cli.waitForLine(timeout: 60) { line in
            if line.contains(#""text":"page during the cut"#) { seen += 1 }
            return seen >= fromPage.count
        }
        #expect(seen == fromPage.count, "\(cli.transcript.suffix(3000))")
        #expect(try browser.safetyWords() == (cli.waitForEvent("connected")?["sas"] as? String), "same DTLS session, same words")
        cli.closeInput()
        #expect(cli.waitForExit(timeout: 30) == 0, "\(cli.transcript.suffix(2000))")
        try browser.waitForState("peer_left", timeout: 30)
    }

    /// chatcli creates, Chromium joins; one line each way. Whichever signaling
    /// socket joins the room first makes the offer: usually chatcli's.
    static func chat(in lab: BrowserLab) throws -> (ChildProcess, Browser) {
        let cli = try lab.tracedChatcli(["create"], name: "chatcli")
        let link = try #require(cli.waitForEvent("code", timeout: 20)?["url"] as? String, "\(cli.transcript)")
        let browser = try lab.browser("chromium")
        try browser.open(link)
        try browser.waitForState("connected")
        #expect(cli.waitForEvent("connected", timeout: 30) != nil, "\(cli.transcript)")
        cli.write("before\n")
        #expect(try browser.peerMessages(count: 1) == ["before"])
        return (cli, browser)
    }

    /// Chromium creates, chatcli joins with the whole code; one line to the page.
    static func pageCreatedChat(in lab: BrowserLab) throws -> (ChildProcess, Browser) {
        let browser = try lab.browser("chromium")
        try browser.open(BrowserLab.serverURL + "/")
        try browser.click("create")
        let code = try #require(try browser.wait("document.getElementById('code-cli').textContent", timeout: 30, "a code") as? String)
        let cli = try lab.tracedChatcli(["join", code], name: "chatcli")
        #expect(cli.waitForEvent("connected", timeout: 60) != nil, "\(cli.transcript)")
        try browser.waitForState("connected")
        cli.write("before\n")
        #expect(try browser.peerMessages(count: 1) == ["before"])
        return (cli, browser)
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes.
    static func waitUntil(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            usleep(50_000)
        }
        return true
    }
}
