import Foundation
import TestSupport
import Testing

/// The web client in real headless Chromium and Firefox (Debian's
/// packages), against the real `chatcli` and each other, in a network
/// namespace (Tools/lib/browser/netns). Same safety words on both ends,
/// text exact both ways (HTML shown as text), leave and peer-left.
@Suite(.ownThreadFirst, .serialized, .enabled(if: BrowserLab.available, "needs root, chromium and firefox-esr"))
struct BrowserTests {
    /// 200 lines with emoji, CJK, combining marks and HTML that must stay text.
    static func lines(_ who: String) -> [String] {
        (1...200).map { "\(who) \($0): héllo 😀👍🏽 漢字かな e\u{301}a\u{308} <b>bold</b> <img src=x onerror=alert(1)> &amp;" }
    }
    /// One message of about 200 KB (under the 256 KiB limit).
    static func big(_ who: String) -> String { who + ":" + String(repeating: "0123456789abcdef漢字😀", count: 200 * 1024 / 28) }

    @Test func chromiumJoinsChatcliCreateAndTheyChatBothWays() throws {
        let lab = try BrowserLab()
        let cli = try lab.chatcli(["create"], name: "chatcli")
        let code = try #require(cli.waitForEvent("code", timeout: 20), "\(cli.transcript)")
        let link = try #require(code["url"] as? String)
        let locator = code["locator"] as? String ?? ""
        #expect((code["code"] as? String)?.hasPrefix(locator + "-") == true, "\(code)")
        #expect(link == "\(BrowserLab.serverURL)/j/\(locator)#\((code["code"] as? String ?? "").dropFirst(7))")
        let browser = try lab.browser("chromium")
        let started = Date()
        try browser.open(link)
        try browser.waitForState("connected")
        let elapsed = Date().timeIntervalSince(started)
        print("chromium joining a waiting chatcli create: connected \(Int(elapsed * 1000)) ms after opening the link")
        let connected = try #require(cli.waitForEvent("connected", timeout: 30), "\(cli.transcript)")
        #expect(connected["auth"] as? String == "pake", "the link's words prove the code: \(connected)")
        #expect(try browser.safetyWords() == connected["sas"] as? String)
        #expect((try browser.eval("document.getElementById('path').dataset.path") as? String)?.isEmpty == false)

        try exchange(cli: cli, browser: browser)

        // The page leaves: chatcli sees its peer go and ends well.
        try browser.click("leave")
        try browser.waitForState("left")
        #expect(cli.waitForEvent("peer_left", timeout: 30) != nil, "\(cli.transcript)")
        #expect(cli.waitForExit(timeout: 30) == 0, "\(cli.transcript)")
    }

    @Test func firefoxCreatesChatcliJoinsAndTheyChatBothWays() throws {
        let lab = try BrowserLab()
        let browser = try lab.browser("firefox")
        try browser.open(BrowserLab.serverURL + "/")
        try browser.click("create")
        let code = try #require(try browser.wait("document.getElementById('code-cli').textContent", timeout: 30, "a code") as? String)
        #expect(try browser.eval("document.getElementById('link').textContent") as? String
                == "\(BrowserLab.serverURL)/j/\(code.prefix(6))#\(code.dropFirst(7))")
        let cli = try lab.chatcli(["join", code], name: "chatcli")
        let connected = try #require(cli.waitForEvent("connected", timeout: 60), "\(cli.transcript)")
        #expect(connected["auth"] as? String == "pake", "the whole code proves the page: \(connected)")
        try browser.waitForState("connected")
        #expect(try browser.safetyWords() == connected["sas"] as? String)

        try exchange(cli: cli, browser: browser)

        // chatcli leaves (end of input): the page says so.
        cli.closeInput()
        #expect(cli.waitForExit(timeout: 30) == 0, "\(cli.transcript)")
        try browser.waitForState("peer_left", timeout: 30)
    }

    @Test func chromiumAndFirefoxChatWithTheSameSafetyWords() throws {
        let lab = try BrowserLab()
        let chromium = try lab.browser("chromium")
        let firefox = try lab.browser("firefox")
        try chromium.open(BrowserLab.serverURL + "/")
        try #require(try chromium.eval("document.activeElement && document.activeElement.id") as? String == "name", "focus starts on the first field")
        try chromium.click("create")
        let link = try #require(try chromium.wait("document.body.dataset.state === 'waiting' && document.getElementById('link').textContent", timeout: 30, "the link") as? String)
        try firefox.open(link)
        try chromium.waitForState("connected")
        try firefox.waitForState("connected")
        let words = try chromium.safetyWords()
        #expect(words.split(separator: " ").count == 5)
        #expect(try firefox.safetyWords() == words)

        let fromChromium = Self.lines("chromium"), fromFirefox = Self.lines("firefox")
        try chromium.send(fromChromium)
        try firefox.send(fromFirefox)
        #expect(try firefox.peerMessages(count: 200) == fromChromium)
        #expect(try chromium.peerMessages(count: 200) == fromFirefox)
        // Text, never markup: no element came from a message.
        #expect(try chromium.eval("document.querySelectorAll('#messages img, #messages b').length") as? Int == 0)

        // A phone and a desktop screenshot of a live chat, kept as artifacts.
        try FileManager.default.createDirectory(atPath: BrowserLab.artifacts, withIntermediateDirectories: true)
        for (browser, width, height) in [(chromium, 390, 844), (chromium, 1280, 800), (firefox, 390, 844)] {
            let path = "\(BrowserLab.artifacts)/\(browser.kind)-\(width)x\(height).png"
            let shot = try browser.screenshot(path, width: width, height: height)
            #expect((shot["colors"] as? Int ?? 0) >= 8, "\(path): \(shot)")
            #expect((shot["ink"] as? Double ?? 0) > 0.02, "\(path) looks blank: \(shot)")
            #expect(try browser.eval("document.documentElement.scrollWidth <= window.innerWidth") as? Bool == true,
                    "\(path): nothing wider than the viewport")
        }

        try firefox.click("leave")
        try firefox.waitForState("left")
        try chromium.waitForState("peer_left", timeout: 30)
    }

    /// 200 lines and one 200 KB message each way, exact.
    private func exchange(cli: ChildProcess, browser: Browser) throws {
        let fromCLI = Self.lines("chatcli") + [Self.big("chatcli")]
        cli.write(fromCLI.joined(separator: "\n") + "\n")
        #expect(try browser.peerMessages(count: fromCLI.count, timeout: 90) == fromCLI)
        #expect(try browser.eval("document.querySelectorAll('#messages img, #messages b').length") as? Int == 0)

        let fromBrowser = Self.lines(browser.kind) + [Self.big(browser.kind)]
        try browser.send(fromBrowser)
        var seen = 0
        _ = cli.waitForLine(timeout: 120) { line in
            if line.contains(#""event":"message""#) { seen += 1 }
            return seen >= fromBrowser.count
        }
        let received: [String] = cli.stdout.compactMap { line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  obj["event"] as? String == "message" else { return nil }
            return obj["text"] as? String
        }
        #expect(received == fromBrowser, "chatcli received \(received.count) of \(fromBrowser.count)")
    }
}

/// The page and its headers, from a real HTTP response of `chatcli serve`.
@Test func thePageIsServedWithStrictHeaders() throws {
    let server = try ServerProcess()
    for path in ["/", "/j/123456", "/app.js", "/app.css", "/sas-words.js", "/code-words.js", "/cpace.js"] {
        let head = try #require(rawGet(port: server.port, path), "GET \(path)")
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(path): \(head)")
        for header in ["X-Content-Type-Options: nosniff", "Referrer-Policy: no-referrer", "Cache-Control: no-cache", "ETag: \"",
                       "Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'", "frame-ancestors 'none'",
                       "connect-src 'self' ws://127.0.0.1:\(server.port)"] {
            #expect(head.contains(header), "\(path) lacks \(header)")
        }
    }
    // The code in an invite link is not logged.
    #expect(server.process.waitForLine(stderr: true, timeout: 5) { $0.contains("path=/j/-") } != nil)
    #expect(!server.process.stderr.contains { $0.contains("123456") }, "\(server.process.transcript)")
}

/// The response head of `GET path` on 127.0.0.1.
private func rawGet(port: UInt16, _ path: String) -> String? {
    let exchange = HTTPExchange.send("GET", port: port, path)
    return exchange.status == 0 ? nil : exchange.head
}
