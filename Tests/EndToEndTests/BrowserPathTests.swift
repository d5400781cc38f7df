import Foundation
import TestSupport
import Testing

/// The web client over the paths people meet: HTTPS/WSS with `--tls-cert`,
/// a relay-only chat through coturn, browsers with their default mDNS host
/// names, and `Tools/demo --browser`. Real Chromium and Firefox in a network
/// namespace (BrowserLab), against the real `chatcli`.
@Suite(.ownThreadFirst, .serialized, .enabled(if: BrowserLab.available, "needs root, chromium and firefox-esr"))
struct BrowserPathTests {
    @Test func chromiumAndFirefoxChatOverHTTPSAndWSS() throws {
        let lab = try BrowserLab(tls: true)
        let chromium = try lab.browser("chromium")
        let firefox = try lab.browser("firefox")
        try chromium.open(lab.url + "/")
        // A secure context: the page derives the safety words with WebCrypto here.
        #expect(try chromium.eval("window.isSecureContext && !!crypto.subtle") as? Bool == true)
        try chromium.click("create")
        let link = try #require(try chromium.wait("document.body.dataset.state === 'waiting' && document.getElementById('link').textContent",
                                                  timeout: 30, "the link") as? String)
        #expect(link.hasPrefix("https://\(BrowserLab.address):8080/j/"))
        try firefox.open(link)
        try chromium.waitForState("connected")
        try firefox.waitForState("connected")
        #expect(try firefox.eval("window.isSecureContext && !!crypto.subtle") as? Bool == true)
        #expect(try chromium.safetyWords() == firefox.safetyWords())
        try chromium.send(["over wss 🔒"])
        #expect(try firefox.peerMessages(count: 1) == ["over wss 🔒"])
        // The signaling socket was WSS: a TLS-only server saw both upgrades.
        #expect(lab.server.stderr.filter { $0.contains("event=ws_open") }.count >= 2, "\(lab.server.transcript)")
    }

    @Test func aRelayOnlyPageChatsWithChatcliThroughCoturn() throws {
        let lab = try BrowserLab(turn: true)
        let cli = try lab.chatcli(["create"], name: "chatcli")
        let link = try #require(cli.waitForEvent("code", timeout: 20)?["url"] as? String, "\(cli.transcript)")
        let browser = try lab.browser("chromium")
        try browser.open(link.replacingOccurrences(of: "#", with: "?relay#"))   // the query before the fragment
        try browser.waitForState("connected")
        let connected = try #require(cli.waitForEvent("connected", timeout: 30), "\(cli.transcript)")
        #expect(try browser.eval("document.getElementById('path').dataset.path") as? String == "relay")
        // The page's own end is the relayed one, from coturn's relay ports.
        let shown = try browser.eval("document.getElementById('path').textContent") as? String ?? ""
        #expect(shown.hasPrefix("relay (relay \(BrowserLab.address):49"), "\(shown)")
        // chatcli itself went direct: its peer is the relayed address coturn allocated
        // (peer-reflexive when the page's check arrives before its trickled candidate, RFC 8445 §7.3.1.3).
        let remote = connected["remote"] as? String ?? ""
        #expect(["relay", "prflx"].contains { remote.hasPrefix("\($0) \(BrowserLab.address):49") }, "\(connected)")
        #expect(try browser.safetyWords() == connected["sas"] as? String)
        cli.write("through the relay\n")
        #expect(try browser.peerMessages(count: 1) == ["through the relay"])
        try browser.send(["and back"])
        #expect(cli.waitForLine(timeout: 30) { $0.contains(#""text":"and back""#) } != nil, "\(cli.transcript)")
        cli.closeInput()
        #expect(cli.waitForExit(timeout: 30) == 0, "\(cli.transcript)")
    }

    /// Default browser settings hide host addresses behind `xxxx.local`
    /// names. chatcli does not resolve them: the browser's checks reach it
    /// anyway and it learns the address as a peer-reflexive candidate
    /// (RFC 8445 §7.3.1.3), so the chat connects without any mDNS query.
    /// STUN is blocked in the namespace, so the browser has no
    /// server-reflexive candidate either: `.local` names are all it sends.
    @Test(arguments: ["chromium", "firefox"])
    func browsersWithMDNSCandidatesConnectThroughPeerReflexiveOnes(kind: String) throws {
        let lab = try BrowserLab()
        try lab.iptables(["-A", "OUTPUT", "-p", "udp", "--dport", "3478:3479", "-j", "DROP"])
        let browser = try lab.browser(kind, mdns: true)
        let cli: ChildProcess
        if kind == "chromium" {
            cli = try lab.tracedChatcli(["create"], name: "chatcli")
            let link = try #require(cli.waitForEvent("code", timeout: 20)?["url"] as? String, "\(cli.transcript)")
            try browser.open(link)
        } else {
            try browser.open(lab.url + "/")
            try browser.click("create")
            let code = try #require(try browser.wait("document.getElementById('code-cli').textContent", timeout: 30, "a code") as? String)
            cli = try lab.tracedChatcli(["join", code], name: "chatcli")
        }
        try browser.waitForState("connected")
        let connected = try #require(cli.waitForEvent("connected", timeout: 30), "\(cli.transcript)")
        // The browser offered only mDNS names for its host address …
        let offered = cli.stderr.filter { $0.hasPrefix("[signaling] message(") && $0.contains("candidate:") && $0.contains(" typ ") }
        #expect(!offered.isEmpty && offered.allSatisfy { $0.contains(".local ") && $0.contains(" typ host") }, "\(cli.transcript)")
        #expect(!offered.contains { $0.contains(" \(BrowserLab.address) ") }, "the address itself was not revealed")
        // … and chatcli reached it as a peer-reflexive candidate.
        #expect((connected["remote"] as? String)?.hasPrefix("prflx \(BrowserLab.address):") == true, "\(connected)")
        #expect(try browser.safetyWords() == connected["sas"] as? String)
        cli.write("no mDNS query needed\n")
        #expect(try browser.peerMessages(count: 1) == ["no mDNS query needed"])
        try browser.send(["peer-reflexive works"])
        #expect(cli.waitForLine(timeout: 30) { $0.contains(#""text":"peer-reflexive works""#) } != nil, "\(cli.transcript)")
        cli.closeInput()
        #expect(cli.waitForExit(timeout: 30) == 0, "\(cli.transcript)")
    }

    /// chatcli leaving first closes the page's channels the standard way (RFC
    /// 8831 §6.7 stream reset, then SCTP SHUTDOWN) before it exits. The
    /// server is stopped first, so no `peer_left` can tell the page: it
    /// learns it from its `chat` channel closing.
    @Test(arguments: ["chromium", "firefox"])
    func chatcliLeavingFirstClosesTheBrowsersChannel(kind: String) throws {
        let lab = try BrowserLab()
        let cli = try lab.chatcli(["create"], name: "chatcli")
        let link = try #require(cli.waitForEvent("code", timeout: 20)?["url"] as? String, "\(cli.transcript)")
        let browser = try lab.browser(kind)
        try browser.open(link)
        try browser.waitForState("connected")
        #expect(cli.waitForEvent("connected", timeout: 30) != nil, "\(cli.transcript)")
        cli.write("bye\n")
        #expect(try browser.peerMessages(count: 1) == ["bye"])

        lab.server.stop()
        cli.closeInput()
        try browser.waitForState("peer_left", timeout: 30)
        #expect(try browser.eval("document.body.dataset.peerLeft") as? String == "channel")
        #expect(cli.waitForExit(timeout: 60) == 0, "\(cli.transcript)")
    }

    /// `Tools/demo --browser`: a server and a `chatcli create` on this
    /// machine's address, and the link to open; a browser opens it and chats.
    @Test func theBrowserDemoPrintsALinkThatChromiumOpens() throws {
        let lab = try BrowserLab()
        let demo = try lab.exec(["/usr/bin/env", "CHATCLI_BIN=\(Harness.chatcliPath)", Harness.packageRoot + "/Tools/demo", "--browser"], name: "demo")
        defer {
            // End of input ends `chatcli create`, and the demo then stops its server.
            demo.closeInput()
            _ = demo.waitForExit(timeout: 60)
        }
        let line = try #require(demo.waitForLine(timeout: 120) { $0.contains("/j/") }, "\(demo.transcript)")
        let link = try #require(line.range(of: #"http://198\.18\.64\.1:\d+/j/\d{6}(#[a-z]+-[a-z]+)?"#, options: .regularExpression).map { String(line[$0]) },
                                "\(demo.transcript)")
        let browser = try lab.browser("chromium")
        try browser.open(link)
        try browser.waitForState("connected")
        demo.write("hello from the demo\n")
        #expect(try browser.peerMessages(count: 1) == ["hello from the demo"])
        try browser.send(["hello from chromium"])
        #expect(demo.waitForLine(timeout: 30) { $0.contains("hello from chromium") } != nil, "\(demo.transcript)")
        demo.closeInput()
        #expect(demo.waitForExit(timeout: 60) == 0, "\(demo.transcript)")
        try browser.waitForState("peer_left", timeout: 30)
    }
}
