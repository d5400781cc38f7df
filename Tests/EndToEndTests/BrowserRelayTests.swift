import Foundation
import Testing

/// Relay-only pages (`?relay=udp|tcp|tls`) chat with a relay-only chatcli
/// through `chatcli serve`'s own relay, no coturn anywhere: TURN over UDP on
/// the STUN port, over TLS on the HTTPS port (`serve --tls-cert`), and over
/// TCP on the HTTP port of a second, plain server in the same namespace. One
/// browser runs the three chats. Both ends relay, so the default peer policy
/// holds (another allocation's relayed address is always a permitted peer).
/// Firefox reaches the TLS server by name: it uses `turns:` only with a host
/// name in the URL (the server names the host the page came from). Chromium
/// takes the address (its TURN look-ups ignore the namespace's hosts file).
@Suite(.ownThreadFirst, .serialized, .enabled(if: BrowserLab.available, "needs root, chromium and firefox-esr"))
struct BrowserRelayTests {
    static let plainRelayPorts = 50100...50199

    @Test(arguments: ["chromium", "firefox"])
    func relayOnlyPagesChatWithChatcliThroughServesRelayOverUDPTCPAndTLS(kind: String) throws {
        let lab = try BrowserLab(tls: true, relay: true)
        let tlsServer = "https://\(kind == "firefox" ? BrowserLab.hostName : BrowserLab.address):8080"
        let plain = try lab.serve(port: 8081, stunPort: 3480, ["--turn-relay-ports", "\(Self.plainRelayPorts.lowerBound)-\(Self.plainRelayPorts.upperBound)"])
        let browser = try lab.browser(kind)
        try chat(lab, browser, transport: "udp", server: tlsServer, relayPorts: BrowserLab.relayPorts)
        // No TURN over UDP reaches either server from here on: chatcli relays over TLS and TCP too.
        try lab.iptables(["-A", "OUTPUT", "-p", "udp", "--dport", "3478:3481", "-j", "DROP"])
        try chat(lab, browser, transport: "tls", server: tlsServer, relayPorts: BrowserLab.relayPorts)
        try chat(lab, browser, transport: "tcp", server: plain, relayPorts: Self.plainRelayPorts)
    }

    /// `chatcli create --relay-only` on `server`, the
    /// page opens its link relaying over `transport` only; both ends' relayed
    /// addresses are that server's, and a line crosses each way.
    private func chat(_ lab: BrowserLab, _ browser: Browser, transport: String, server: String, relayPorts: ClosedRange<Int>) throws {
        let cli = try lab.chatcli(["create", "--relay-only"], server: server, name: "chatcli \(transport)")
        let link = try #require(cli.waitForEvent("code", timeout: 20)?["url"] as? String, "\(cli.transcript)")
        try browser.open(link.replacingOccurrences(of: "#", with: "?relay=\(transport)#"))   // the query before the fragment
        do {
            try browser.waitForState("connected", timeout: 90)
        } catch {
            throw BrowserError("over \(transport): \(error)\n\(cli.transcript)")
        }
        let connected = try #require(cli.waitForEvent("connected", timeout: 60), "\(cli.transcript)")
        #expect(try browser.eval("document.getElementById('path').dataset.path") as? String == "relay", "\(transport)")
        #expect(try browser.eval("document.getElementById('path').dataset.relayProtocol") as? String == transport)
        let shown = try browser.eval("document.getElementById('path').textContent") as? String ?? ""
        #expect(Self.relayedPort(shown, after: "relay (relay ").map(relayPorts.contains) == true, "\(transport): \(shown)")
        #expect(Self.relayedPort(connected["local"] as? String ?? "", after: "relay ").map(relayPorts.contains) == true, "\(transport): \(connected)")
        #expect(try browser.safetyWords() == connected["sas"] as? String)
        cli.write("over \(transport) from chatcli\n")
        #expect(try browser.peerMessages(count: 1) == ["over \(transport) from chatcli"])
        try browser.send(["over \(transport) from \(browser.kind)"])
        #expect(cli.waitForLine(timeout: 30) { $0.contains(#""text":"over \#(transport) from \#(browser.kind)""#) } != nil, "\(cli.transcript)")
        cli.closeInput()
        #expect(cli.waitForExit(timeout: 30) == 0, "\(cli.transcript)")
    }

    /// The port of `PREFIX198.18.64.1:PORT…`, or nil if the text is not that.
    static func relayedPort(_ text: String, after prefix: String) -> Int? {
        let start = prefix + BrowserLab.address + ":"
        guard text.hasPrefix(start) else { return nil }
        return Int(text.dropFirst(start.count).prefix { $0.isNumber })
    }
}
