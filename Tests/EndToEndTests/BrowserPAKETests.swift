import Foundation
import Testing
import TestSupport

/// The page runs the code's PAKE (WireProtocol §4c) in real headless
/// Chromium and Firefox: the draft's CPace vectors in each browser, the link
/// `chatcli create` prints (`/j/123456#brave-calm`) proving both sides, the
/// secret never in a request, a log or the address bar, and wrong words
/// failing on both sides with nothing delivered.
@Suite(.ownThreadFirst, .serialized, .enabled(if: BrowserLab.available, "needs root, chromium and firefox-esr"))
struct BrowserPAKETests {
    @Test func theDraftsCPaceVectorsPassInChromiumAndFirefox() throws {
        let lab = try BrowserLab()
        for kind in ["chromium", "firefox"] {
            let browser = try lab.browser(kind)
            try browser.open(BrowserLab.serverURL + "/")
            let result = try #require(try browser.eval(Self.vectorScript) as? [String: Any], "\(kind) ran no vectors")
            let expected: [String: Any] = [
                "generatorStringLength": CPaceVectors.generatorStringLength, "generatorStringHash": CPaceVectors.generatorStringHash,
                "generator": CPaceVectors.generator, "sharedYa": CPaceVectors.sharedYa, "sharedYb": CPaceVectors.sharedYb,
                "kFromA": CPaceVectors.k, "kFromB": CPaceVectors.k, "iskIR": CPaceVectors.iskIR, "iskOC": CPaceVectors.iskOC,
                "product": CPaceVectors.multiplyProduct,
            ]
            for (key, value) in expected {
                #expect("\(result[key] ?? "missing")" == "\(value)", "\(kind): \(key)")
            }
            #expect(result["invalidRefused"] as? Bool == true && result["neutralRefused"] as? Bool == true, "\(kind): G.I must be refused")
            // Two page handshakes: the same code verifies, another word fails both.
            #expect(try browser.eval(Self.handshakeScript("123456-brave-calm")) as? String == "verified verified", "\(kind)")
            #expect(try browser.eval(Self.handshakeScript("123456-brave-cold")) as? String == "failed failed", "\(kind)")
            browser.quit()
        }
    }

    @Test func chromiumOpensTheLinkChatcliCreatePrintedAndTheCodeProvesBothSides() throws {
        let lab = try BrowserLab()
        let cli = try lab.chatcli(["create"], name: "chatcli")
        let code = try #require(cli.waitForEvent("code", timeout: 20), "\(cli.transcript)")
        let locator = try #require(code["locator"] as? String)
        let secret = try #require((code["code"] as? String)?.dropFirst(locator.count + 1)).description
        let link = try #require(code["url"] as? String)
        #expect(link == "\(BrowserLab.serverURL)/j/\(locator)#\(secret)")
        let netlog = Harness.temporaryDirectory() + "/chromium.netlog.json"
        let browser = try lab.browser("chromium", netlog: netlog)
        try browser.open(link)
        // Gone from the address bar and never in the title or storage.
        #expect(try browser.eval("location.hash") as? String == "")
        #expect(try browser.eval("document.title") as? String == "chatcli")
        #expect(try browser.eval("localStorage.length + sessionStorage.length") as? Int == 0)
        try browser.waitForState("connected")
        let connected = try #require(cli.waitForEvent("connected", timeout: 30), "\(cli.transcript)")
        #expect(connected["auth"] as? String == "pake", "\(connected)")
        #expect(try browser.eval("document.body.dataset.auth") as? String == "pake")
        #expect((try browser.eval("document.getElementById('status').textContent") as? String)?.contains("verified by code") == true)
        #expect(try browser.safetyWords() == connected["sas"] as? String)
        #expect(try browser.eval("location.href") as? String == "\(BrowserLab.serverURL)/")

        // Text flows both ways once proven.
        cli.write("from chatcli\n")
        #expect(try browser.peerMessages(count: 1) == ["from chatcli"])
        try browser.send(["from chromium"])
        #expect(cli.waitForEvent("message", timeout: 30)?["text"] as? String == "from chromium", "\(cli.transcript)")

        try browser.click("leave")
        try browser.waitForState("left")
        #expect(cli.waitForExit(timeout: 30) == 0, "\(cli.transcript)")
        #expect(browser.quitAndWait() != nil, "the browser did not close")
        try Self.expectNeverSent(secret, opened: "/j/\(locator)", browser: "chromium", log: netlog, lab: lab)
    }

    @Test func firefoxCreatesChatcliJoinsWithTheWholeCodeAndBothAreProven() throws {
        let lab = try BrowserLab()
        let netlog = Harness.temporaryDirectory() + "/firefox.log"
        let browser = try lab.browser("firefox", netlog: netlog)
        try browser.open(BrowserLab.serverURL + "/")
        try browser.click("create")
        let whole = try #require(try browser.wait("document.getElementById('code-cli').textContent", timeout: 30, "a code") as? String)
        let locator = String(whole.prefix(6)), secret = String(whole.dropFirst(7))
        #expect(whole.firstMatch(of: /^[0-9]{6}-[a-z]+-[a-z]+$/) != nil, "\(whole)")
        #expect(try browser.eval("document.getElementById('link').textContent") as? String == "\(BrowserLab.serverURL)/j/\(locator)#\(secret)")
        let cli = try lab.chatcli(["join", whole], name: "chatcli")
        let connected = try #require(cli.waitForEvent("connected", timeout: 60), "\(cli.transcript)")
        #expect(connected["auth"] as? String == "pake", "\(connected)")
        try browser.waitForState("connected")
        #expect(try browser.eval("document.body.dataset.auth") as? String == "pake")
        #expect(try browser.safetyWords() == connected["sas"] as? String)
        try browser.send(["from firefox"])
        #expect(cli.waitForEvent("message", timeout: 30)?["text"] as? String == "from firefox", "\(cli.transcript)")
        cli.closeInput()
        #expect(cli.waitForExit(timeout: 30) == 0, "\(cli.transcript)")
        try browser.waitForState("peer_left", timeout: 30)
        #expect(browser.quitAndWait() != nil, "the browser did not close")
        try Self.expectNeverSent(secret, opened: "/", browser: "firefox", log: netlog, lab: lab)
    }

    @Test func wrongWordsInTheLinkFailOnBothSidesAndNothingIsDelivered() throws {
        let lab = try BrowserLab()
        let cli = try lab.chatcli(["create"], name: "chatcli")
        let code = try #require(cli.waitForEvent("code", timeout: 20), "\(cli.transcript)")
        let locator = try #require(code["locator"] as? String)
        let secret = try #require((code["code"] as? String)?.dropFirst(locator.count + 1)).description
        let wrong = secret.hasPrefix("able-") ? "active-" + secret.dropFirst(5) : "able-" + secret.split(separator: "-")[1]
        cli.write("typed before the check\n")
        let browser = try lab.browser("firefox")
        try browser.open("\(BrowserLab.serverURL)/j/\(locator)#\(wrong)")
        try browser.send(["typed in the page"])
        _ = try browser.wait("document.body.dataset.error === 'pake_failed'", timeout: 60, "pake_failed in the page")
        let failed = try #require(cli.waitForEvent("error", timeout: 30), "\(cli.transcript)")
        #expect(failed["error"] as? String == "pake_failed", "\(failed)")
        #expect(cli.waitForExit(timeout: 30) == 1, "\(cli.transcript)")
        #expect(try browser.eval("document.querySelectorAll('#messages li.peer').length") as? Int == 0)
        #expect(!cli.stdout.contains { $0.contains(#""event":"message""#) || $0.contains(#""event":"connected""#) }, "\(cli.transcript)")
    }

    /// The join form takes the whole code as chatcli prints it; a
    /// malformed secret is refused before anything reaches the server.
    @Test func aPageJoinsWithTheWholeCodeTypedIntoTheForm() throws {
        let lab = try BrowserLab()
        let cli = try lab.chatcli(["create"], name: "chatcli")
        let whole = try #require(cli.waitForEvent("code", timeout: 20)?["code"] as? String, "\(cli.transcript)")
        let browser = try lab.browser("chromium")
        try browser.open(BrowserLab.serverURL + "/")
        try browser.typeCode(String(whole.prefix(6)) + "-brave-notaword")
        _ = try browser.wait("document.body.dataset.state === 'failed'", timeout: 30, "the refusal")
        #expect((try browser.eval("document.getElementById('error').textContent") as? String)?.contains("not a chatcli code") == true)
        try browser.open(BrowserLab.serverURL + "/")
        try browser.typeCode(whole.replacingOccurrences(of: "-", with: " ").uppercased())
        try browser.waitForState("connected")
        let connected = try #require(cli.waitForEvent("connected", timeout: 30), "\(cli.transcript)")
        #expect(connected["auth"] as? String == "pake", "\(connected)")
        #expect(try browser.eval("document.body.dataset.auth") as? String == "pake")
    }

    @Test func chromiumAndFirefoxProveTheCodeBetweenThemselves() throws {
        let lab = try BrowserLab()
        let firefox = try lab.browser("firefox")
        let chromium = try lab.browser("chromium")
        try firefox.open(BrowserLab.serverURL + "/")
        try firefox.click("create")
        let link = try #require(try firefox.wait("document.body.dataset.state === 'waiting' && document.getElementById('link').textContent",
                                                 timeout: 30, "the link") as? String)
        #expect(link.contains("#"), "\(link)")
        try chromium.open(link)
        try chromium.waitForState("connected")
        try firefox.waitForState("connected")
        for browser in [chromium, firefox] {
            #expect(try browser.eval("document.body.dataset.auth") as? String == "pake", "\(browser.kind)")
            #expect((try browser.eval("document.getElementById('status').textContent") as? String)?.contains("verified by code") == true)
        }
        #expect(try chromium.safetyWords() == firefox.safetyWords())
        try chromium.send(["hello firefox"])
        #expect(try firefox.peerMessages(count: 1) == ["hello firefox"])
    }

    /// A page that opened the link without its words proves nothing, and
    /// neither does the page that created the chat: neither shows or sends
    /// anything until its person has compared the safety words and pressed
    /// "They match"; then what each typed arrives once, in order.
    @Test func anUnprovenChatBetweenPagesWaitsForEachPersonToAcceptTheSafetyWords() throws {
        let lab = try BrowserLab()
        let chromium = try lab.browser("chromium")
        let firefox = try lab.browser("firefox")
        try chromium.open(BrowserLab.serverURL + "/")
        try chromium.click("create")
        let link = try #require(try chromium.wait("document.body.dataset.state === 'waiting' && document.getElementById('link').textContent",
                                                  timeout: 30, "the link") as? String)
        try firefox.open(String(link.prefix { $0 != "#" }))   // the digits alone
        try chromium.waitForState("unproven")
        try firefox.waitForState("unproven")
        _ = try firefox.wait("document.getElementById('sas').textContent.split(' ').length === 5", timeout: 30, "the safety words")
        #expect(try chromium.safetyWords() == firefox.safetyWords())
        try chromium.send(["typed before the words were compared"])
        try firefox.send(["typed before too"])
        // Chromium's person accepts: its message goes, and Firefox holds it unseen.
        try chromium.click("verify")
        try chromium.waitForState("connected")
        #expect(try chromium.eval("document.body.dataset.auth") as? String == "words")
        _ = try firefox.wait("Number(document.body.dataset.held) >= 1", timeout: 30, "Chromium's message held in Firefox")
        #expect(try firefox.eval("document.querySelectorAll('#messages li.peer').length") as? Int == 0)
        #expect(try chromium.eval("document.querySelectorAll('#messages li.peer').length") as? Int == 0)
        // Firefox's person accepts: both messages arrive, once.
        try firefox.click("verify")
        try firefox.waitForState("connected")
        #expect(try firefox.peerMessages(count: 1) == ["typed before the words were compared"])
        #expect(try chromium.peerMessages(count: 1) == ["typed before too"])
    }

    // MARK: Helpers

    /// The server's access log and what the browser sent, from its own log,
    /// never hold the secret words; the log does hold the request for the
    /// page it `opened` and the REST calls, so an empty or unwritten log cannot pass.
    static func expectNeverSent(_ secret: String, opened: String, browser: String, log: String, lab: BrowserLab) throws {
        let sent = try sentByBrowser(browser, log: log)
        #expect(sent.contains("GET \(opened) HTTP/1.1"), "\(browser)'s log shows no request for the page")
        #expect(sent.contains("POST /api/rooms"), "\(browser)'s log shows no REST request")
        for form in [secret, secret.replacingOccurrences(of: "-", with: " "), secret.replacingOccurrences(of: "-", with: "%2D")] {
            #expect(!sent.localizedCaseInsensitiveContains(form), "\(browser) sent the secret (\(form))")
        }
        let server = (lab.server.stderr + lab.server.stdout).joined(separator: "\n")
        #expect(server.contains("path=/api/rooms"), "the server logged no access")
        #expect(!server.contains(secret), "the server's log holds the secret")
    }

    /// What the browser sent, from its own log. Chromium's net log: every
    /// event's parameters (request lines, headers, WebSocket frames and the
    /// socket bytes themselves, decoded) except `url`, its record of the
    /// address it opened, fragment included, which is not sent. Firefox's
    /// HTTP log: the request blocks it wrote (`http request [ … ]`).
    static func sentByBrowser(_ browser: String, log: String) throws -> String {
        let directory = (log as NSString).deletingLastPathComponent, name = (log as NSString).lastPathComponent
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(name) }.map { directory + "/" + $0 }
        var sent: [String] = []
        if browser == "chromium" {
            let data = try Data(contentsOf: URL(fileURLWithPath: log))
            let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "the net log is not JSON")
            func walk(_ value: Any, key: String) {
                switch value {
                case let object as [String: Any]: for (k, v) in object where k != "url" { walk(v, key: k) }
                case let array as [Any]: for v in array { walk(v, key: key) }
                case let text as String:
                    sent.append(text)
                    if key == "bytes", let bytes = Data(base64Encoded: text) { sent.append(String(decoding: bytes, as: UTF8.self)) }
                default: break
                }
            }
            for event in root["events"] as? [[String: Any]] ?? [] { walk(event["params"] ?? [:], key: "") }
        } else {
            for file in files {
                var inRequest = false
                for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") {
                    if line.hasSuffix("nsHttp http request [") { inRequest = true; continue }
                    if line.hasSuffix("nsHttp ]") { inRequest = false; continue }
                    if inRequest, let at = line.range(of: "nsHttp ") { sent.append(String(line[at.upperBound...]).trimmingCharacters(in: .whitespaces)) }
                }
            }
        }
        return sent.joined(separator: "\n")
    }

    static func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }

    static var vectorScript: String {
        let inputs = Browser.literal([
            "prs": CPaceVectors.prs, "ci": CPaceVectors.ci, "sid": CPaceVectors.sid, "ya": CPaceVectors.ya, "yb": CPaceVectors.yb,
            "k": CPaceVectors.k, "ada": CPaceVectors.ada, "adb": CPaceVectors.adb, "s": CPaceVectors.multiplyScalar,
            "x": CPaceVectors.multiplyPoint, "invalid": CPaceVectors.invalidPoint, "neutral": CPaceVectors.neutralPoint,
        ])
        return """
            (() => { const C = self.CPace, v = \(inputs), h = (t) => Uint8Array.from(t.match(/../g) || [], (x) => parseInt(x, 16));
              const prs = C.utf8(v.prs), ci = h(v.ci), sid = h(v.sid), ada = C.utf8(v.ada), adb = C.utf8(v.adb);
              const g = C.generator(prs, ci, sid), Ya = C.scalarMultiply(h(v.ya), g), Yb = C.scalarMultiply(h(v.yb), g);
              const prefix = C.lvCat(C.concat(C.utf8('CPaceRistretto255'), C.utf8('_ISK')), sid, h(v.k));
              return {
                generatorStringLength: C.generatorString(prs, ci, sid).length,
                generatorStringHash: C.hex(C.sha512(C.generatorString(prs, ci, sid))),
                generator: C.hex(g), sharedYa: C.hex(Ya), sharedYb: C.hex(Yb),
                kFromA: C.hex(C.scalarMultiply(h(v.ya), Yb)), kFromB: C.hex(C.scalarMultiply(h(v.yb), Ya)),
                iskIR: C.hex(C.intermediateSessionKey(sid, h(v.k), Ya, ada, Yb, adb)),
                iskOC: C.hex(C.sha512(C.concat(prefix, C.transcriptOC(Ya, ada, Yb, adb)))),
                product: C.hex(C.scalarMultiply(h(v.s), h(v.x))),
                invalidRefused: C.scalarMultiply(h(v.s), h(v.invalid)) === null,
                neutralRefused: C.scalarMultiply(h(v.s), h(v.neutral)) === null,
              }; })()
            """
    }

    /// The page's own handshake, offerer with "123456-brave-calm" against a
    /// responder with `other`, messages through JSON as on `ctl`.
    static func handshakeScript(_ other: String) -> String {
        """
        (() => { const C = self.CPace, fp = (n) => new Uint8Array(32).fill(n);
          const b = { roomId: 'room', offererFingerprint: fp(1), answererFingerprint: fp(2) };
          const a = C.handshake(true, '123456-brave-calm', b), r = C.handshake(false, \(Browser.literal(other)), b);
          const pass = (m) => (m ? JSON.parse(JSON.stringify(m)) : null);
          const m2 = r.receive(pass(a.start())), m3 = a.receive(pass(m2));
          if (m3) r.receive(pass(m3));
          return a.outcome + ' ' + r.outcome; })()
        """
    }
}
