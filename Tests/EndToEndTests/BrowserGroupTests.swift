import Foundation
import Testing
import TestSupport

/// Group rooms in the web page (issue 31; WireProtocol §2b, §4d): real
/// headless Chromium and Firefox beside chatcli in one room, one pairwise
/// connection per member, every pair proven by the code, lines by name.
@Suite(.ownThread, .serialized, .enabled(if: BrowserLab.available, "needs root, chromium and firefox-esr"))
struct BrowserGroupTests {
    /// The other members' lines a page shows, as "name|text", once there are `count`.
    static func lines(_ page: Browser, count: Int) throws -> [String] {
        let js = "(() => { const t = [...document.querySelectorAll('#messages li.peer')]"
            + ".map(e => e.querySelector('.who').textContent.replace(/:$/, '') + '|' + e.querySelector('.text').textContent);"
            + " return t.length >= \(count) ? t : null; })()"
        return try page.wait(js, timeout: 60, "\(count) lines") as? [String] ?? []
    }

    /// Opens the start page, types a name, then the whole code, as a person would.
    static func join(_ page: Browser, as name: String, code: String) throws {
        try page.open(BrowserLab.serverURL + "/")
        _ = try page.eval("(() => { document.getElementById('name').value = \(Browser.literal(name)); return true; })()")
        try page.typeCode(code)
    }

    static func events(_ member: ChildProcess, _ event: String) -> [[String: Any]] {
        member.stdout.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == event }
    }

    /// A phone-sized screenshot, kept for people to look at, that fits the viewport.
    static func screenshot(_ page: Browser, _ name: String) throws {
        try FileManager.default.createDirectory(atPath: BrowserLab.artifacts, withIntermediateDirectories: true)
        let path = "\(BrowserLab.artifacts)/\(name)-\(page.kind)-390x844.png"
        let shot = try page.screenshot(path, width: 390, height: 844)
        #expect((shot["ink"] as? Double ?? 0) > 0.02, "\(path) looks blank: \(shot)")
        #expect(try page.eval("document.documentElement.scrollWidth <= window.innerWidth") as? Bool == true, "\(path): nothing wider than the viewport")
    }

    static func status(_ page: Browser) throws -> String {
        try page.eval("document.getElementById('status').textContent") as? String ?? ""
    }

    /// Three members, every pair proven; then the chatcli member is killed
    /// and resumed (the pages wait for it, prove the code again on new
    /// connections and deliver what they typed meanwhile, once); then a page leaves.
    @Test func chatcliChromiumAndFirefoxChatInOneGroupEveryPairProvenByTheCode() throws {
        let lab = try BrowserLab()
        // alice is saved (the store keeps her seat and whole code) so that she can resume.
        let saved = ["/usr/bin/env", "CHATCLI_PASSPHRASE=browser group test", "XDG_DATA_HOME=\(Harness.temporaryDirectory())",
                     Harness.chatcliPath]
        var alice = try lab.exec(saved + ["create", "--group", "--max", "3", "--as", "alice", "--name", "team", "--server", lab.url, "--json"],
                                 name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let chromium = try lab.browser("chromium"), firefox = try lab.browser("firefox")
        try Self.join(chromium, as: "bob", code: code)
        try Self.join(firefox, as: "carol", code: code)
        for page in [chromium, firefox] {
            _ = try page.wait("document.body.dataset.proven === '2' && document.body.dataset.members === '3'", timeout: 90,
                              "both other members proven")
            #expect(try Self.status(page).contains("3 here"), "\(page.snapshot())")
            let auth = try page.eval("[...document.querySelectorAll('#members li')].map(e => e.dataset.auth).join()") as? String
            #expect(auth == "pake,pake", "\(page.kind): \(page.snapshot())")
        }
        #expect(alice.waitForEvents("connected", count: 2, timeout: 60), "\(alice.transcript)")
        #expect(Self.events(alice, "connected").map { $0["auth"] as? String } == ["pake", "pake"], "\(alice.transcript)")

        alice.write("hi from alice\n")
        try chromium.send(["hi from bob"])
        try firefox.send(["hi from carol"])
        #expect(Set(GroupChatTests.messages(alice, count: 2).map { "\($0.name)|\($0.text)" }) == ["bob|hi from bob", "carol|hi from carol"],
                "\(alice.transcript)")
        #expect(Set(try Self.lines(chromium, count: 2)) == ["alice|hi from alice", "carol|hi from carol"], "\(chromium.snapshot())")
        #expect(Set(try Self.lines(firefox, count: 2)) == ["alice|hi from alice", "bob|hi from bob"], "\(firefox.snapshot())")
        try Self.screenshot(chromium, "group")

        // alice is killed: the pages wait for her; what they type meanwhile reaches her once she is back.
        alice.signal(SIGKILL)
        _ = alice.waitForExit()
        for page in [chromium, firefox] { _ = try page.wait("document.body.dataset.members === '2'", timeout: 30, "alice away") }
        try chromium.send(["b1"])
        try firefox.send(["c1"])
        alice = try lab.exec(saved + ["resume", "team", "--as", "alice", "--json"], name: "alice again")
        #expect(Set(GroupChatTests.messages(alice, count: 2).map { "\($0.name)|\($0.text)" }) == ["bob|b1", "carol|c1"], "\(alice.transcript)")
        for page in [chromium, firefox] {
            _ = try page.wait("document.body.dataset.proven === '2' && document.body.dataset.members === '3'", timeout: 60, "alice back, proven")
        }
        alice.write("alice is back\n")
        #expect(Set(try Self.lines(chromium, count: 4)) == ["alice|hi from alice", "carol|hi from carol", "carol|c1", "alice|alice is back"],
                "\(chromium.snapshot())")
        #expect(Set(try Self.lines(firefox, count: 4)) == ["alice|hi from alice", "bob|hi from bob", "bob|b1", "alice|alice is back"],
                "\(firefox.snapshot())")
        #expect(alice.receivedMessages.count == 2, "each line once: \(alice.transcript)")
        #expect(try firefox.eval("[...document.querySelectorAll('#messages li.note')].some(e => e.textContent.includes('alice is back.'))")
                as? Bool == true, "\(firefox.snapshot())")

        // bob leaves: the others are told, by name, and go on.
        try chromium.click("leave")
        try chromium.waitForState("left")
        _ = try firefox.wait("document.body.dataset.members === '2'", timeout: 30, "bob gone")
        #expect(try firefox.eval("[...document.querySelectorAll('#messages li.note')].some(e => e.textContent.includes('bob left the group.'))")
                as? Bool == true, "\(firefox.snapshot())")
        #expect(alice.waitForEvent("member_left", timeout: 20)?["name"] as? String == "bob", "\(alice.transcript)")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 30) == 0, "\(alice.transcript)")
        _ = try firefox.wait("document.body.dataset.members === '1'", timeout: 30, "alice gone")
    }

    /// The page makes the group (the form's group choice); chatcli joins
    /// three times: with the whole code (proven, lines both ways by name),
    /// with the six digits only (unproven: nothing crosses with the page,
    /// though that chatcli accepts unproven members; its pair with the
    /// member who typed the whole code fails, as chatcli's rule is), and
    /// with other words (that pair fails and is shown; the others go on).
    @Test func aPageCreatesAGroupWhereOnlyMembersWithTheWholeCodeGetItsLines() throws {
        let lab = try BrowserLab()
        let page = try lab.browser("chromium")
        try page.open(BrowserLab.serverURL + "/")
        _ = try page.wait("document.body.dataset.state === 'idle'", timeout: 30, "the start page")
        try Self.screenshot(page, "group-start")
        _ = try page.eval("""
            (() => { document.getElementById('name').value = 'dana'; document.getElementById('group').checked = true;
              document.getElementById('group-max').value = '4'; document.getElementById('create').click(); return true; })()
            """)
        let whole = try #require(try page.wait("document.body.dataset.state === 'waiting' && document.getElementById('code-cli').textContent",
                                                timeout: 30, "a code") as? String)
        #expect((try Self.status(page)).contains("up to 4"), "\(page.snapshot())")
        let bob = try lab.chatcli(["join", whole, "--as", "bob"], name: "bob")
        _ = try page.wait("document.body.dataset.proven === '1'", timeout: 60, "bob proven")
        let carol = try lab.chatcli(["join", String(whole.prefix(6)), "--as", "carol"], name: "carol")
        _ = try page.wait("document.body.dataset.members === '3' && !!document.querySelector('#members li[data-auth=unproven]')",
                          timeout: 60, "carol here, unproven")
        #expect(try page.eval("document.body.dataset.proven") as? String == "1", "\(page.snapshot())")
        #expect(bob.waitForEvents("connected", count: 1, timeout: 60), "\(bob.transcript)")
        #expect(Self.events(bob, "connected").map { $0["auth"] as? String } == ["pake"], "\(bob.transcript)")
        let secret = String(whole.dropFirst(7))
        let wrong = secret.hasPrefix("able-") ? "active-" + secret.dropFirst(5) : "able-" + secret.split(separator: "-")[1]
        let eve = try lab.chatcli(["join", "\(whole.prefix(6))-\(wrong)", "--as", "eve"], name: "eve")
        _ = try page.wait("!!document.body.dataset.pairFailed", timeout: 60, "eve's pair failed")
        #expect(try page.eval("[...document.querySelectorAll('#messages li.note')].some(e => e.textContent.includes('The code did not match with'))")
                as? Bool == true, "\(page.snapshot())")
        #expect(eve.waitForEvents("error", count: 1, timeout: 30), "\(eve.transcript)")
        #expect(Self.events(eve, "error").first?["error"] as? String == "pake_failed", "\(eve.transcript)")

        carol.write("hi from carol\n")
        bob.write("hi from bob\n")
        try page.send(["hi from dana"])
        #expect(GroupChatTests.messages(bob, count: 1).map { "\($0.name)|\($0.text)" } == ["dana|hi from dana"], "\(bob.transcript)")
        #expect(try Self.lines(page, count: 1) == ["bob|hi from bob"], "\(page.snapshot())")
        // carol's line went before bob's, and the page's to bob arrived: neither crossed with carol.
        #expect(try page.eval("document.querySelectorAll('#messages li.peer').length") as? Int == 1, "\(page.snapshot())")
        #expect(!carol.stdout.contains { $0.contains("hi from dana") }, "\(carol.transcript)")
        #expect(!eve.stdout.contains { $0.contains("hi from dana") }, "\(eve.transcript)")
    }
}
