import Foundation
import TestSupport
import Testing

/// Files between the web client in real headless Chromium and the real
/// `chatcli`, both ways, speaking FileTransfer.md: the page accepts or
/// declines (the name shown as text), the received file is read back from
/// its download link byte for byte, chatcli stores what the page sent, and
/// Firefox sends to Chromium page to page.
@Suite(.ownThread, .serialized, .enabled(if: BrowserLab.available && TmuxPane.available, "needs root, chromium, firefox-esr and tmux"))
struct BrowserFileTests {
    /// A name that must stay text on the page.
    static let hostileName = "<img src=x onerror=alert(1)> ü.txt"

    @Test func chatcliSendsInAChatAndChromiumSavesTheExactBytes() throws {
        let lab = try BrowserLab()
        let browser = try lab.browser("chromium")
        try browser.open(BrowserLab.serverURL + "/")
        try browser.click("create")
        let code = try #require(try browser.wait("document.getElementById('code-cli').textContent", timeout: 30, "a code") as? String)
        // A person at a terminal inside the lab's namespace, in the interactive chat.
        let pane = try TmuxPane(name: "wf-cli", command: [BrowserLab.netns, "exec", lab.name, "--", Harness.chatcliPath, "join", code,
                                                          "--server", lab.url, "--no-store", "--accept-unproven"],
                                environment: ["LANG": "C.UTF-8", "TERM": "screen", "NO_COLOR": "1"])
        defer { pane.kill() }
        #expect(pane.waitFor("[connected · direct · verified] >", timeout: 60).ok, "the whole code proves the page: \(pane.screen())")
        try browser.waitForState("connected")

        let dir = Harness.temporaryDirectory()
        let bytes = Data(FileTransferTests.pattern(3_000_000, seed: 16))
        try bytes.write(to: URL(fileURLWithPath: dir + "/photo.raw"))
        pane.enter("/send \(dir)/photo.raw")
        let offered = try #require(try browser.wait("(() => { const l = document.querySelector('#messages li.file[data-transfer=offered]'); return l && l.textContent; })()",
                                                    timeout: 60, "the offer") as? String)
        #expect(offered.contains("Your peer offers photo.raw (3.0 MB)."), "\(offered)")
        _ = try browser.eval("[...document.querySelectorAll('#messages li.file button')].find(b => b.textContent === 'Accept').click() || true")
        let sent = pane.waitFor("Sent #1: verified (SHA-256).", timeout: 120)
        #expect(sent.ok, "\(sent.screen)")
        _ = try browser.wait("document.querySelector('#messages li.file[data-transfer=received] a[download]') !== null", timeout: 60, "the download link")
        #expect(try browser.eval("document.querySelector('#messages li.file a[download]').download") as? String == "photo.raw")
        #expect(try savedBytes(browser, name: "photo.raw") == bytes)

        // Declined: a hostile name stays text, and chatcli hears why.
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/" + Self.hostileName))
        pane.enter("/send \(dir)/\(Self.hostileName)")
        _ = try browser.wait("document.querySelectorAll('#messages li.file[data-transfer=offered]').length === 1", timeout: 60, "the second offer")
        #expect((try browser.eval("document.querySelector('#messages li.file[data-transfer=offered] .text').textContent") as? String)?
            .contains("offers \(Self.hostileName) (1 B)") == true)
        #expect(try browser.eval("document.querySelectorAll('#messages img').length") as? Int == 0)
        _ = try browser.eval("[...document.querySelectorAll('#messages li.file button')].find(b => b.textContent === 'Decline').click() || true")
        let declined = pane.waitFor("declined", timeout: 60)
        #expect(declined.ok, "\(declined.screen)")
        #expect(try browser.eval("document.querySelectorAll('#messages li.file[data-transfer=declined]').length") as? Int == 1)
    }

    @Test func chromiumSendsAFileAndChatcliGetsTheExactBytes() throws {
        let lab = try BrowserLab()
        let dir = Harness.temporaryDirectory()
        let (cli, browser) = try lab.chromiumJoinsChatcli(receivingInto: dir)

        let size = 2_500_000
        try pick(browser, name: "from page.bin", size: size)
        let done = try #require(cli.waitForEvent("transfer_done", "error", timeout: 120), "\(cli.transcript)")
        #expect(done["event"] as? String == "transfer_done" && done["mismatches"] as? Int == 0, "\(done)")
        #expect(FileManager.default.contents(atPath: dir + "/from page.bin") == Self.pagePattern(size))
        _ = try browser.wait("document.querySelector('#messages li.file[data-transfer=sent]') !== null", timeout: 60, "the page's verdict")
        #expect((try browser.eval("document.querySelector('#messages li.file .text').textContent") as? String)?
            .contains("Sent from page.bin (2.5 MB): verified (SHA-256).") == true)
    }

    @Test func firefoxSendsAFileToChromiumPageToPage() throws {
        let lab = try BrowserLab()
        let chromium = try lab.browser("chromium")
        let firefox = try lab.browser("firefox")
        try chromium.open(BrowserLab.serverURL + "/")
        try chromium.click("create")
        let link = try #require(try chromium.wait("document.body.dataset.state === 'waiting' && document.getElementById('link').textContent", timeout: 30, "the link") as? String)
        try firefox.open(link)
        try chromium.waitForState("connected")
        try firefox.waitForState("connected")

        try pick(firefox, name: "notes.bin", size: 700_000)
        _ = try chromium.wait("document.querySelector('#messages li.file[data-transfer=offered]') !== null", timeout: 60, "the offer")
        _ = try chromium.eval("[...document.querySelectorAll('#messages li.file button')].find(b => b.textContent === 'Accept').click() || true")
        _ = try chromium.wait("document.querySelector('#messages li.file[data-transfer=received] a[download]') !== null", timeout: 60, "the download link")
        #expect(try savedBytes(chromium, name: "notes.bin") == Self.pagePattern(700_000))
        _ = try firefox.wait("document.querySelector('#messages li.file[data-transfer=sent]') !== null", timeout: 60, "the sender's verdict")
    }

    /// The bytes `pick` gives a page's file input.
    static func pagePattern(_ size: Int) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 9)) }) }

    /// The file input as a person fills it (the same handler drag and drop uses), with `pagePattern(size)`.
    private func pick(_ browser: Browser, name: String, size: Int) throws {
        _ = try browser.eval("""
            (() => { const b = new Uint8Array(\(size)); for (let i = 0; i < b.length; i++) b[i] = (i * 31 + (i >> 9)) & 255;
              const t = new DataTransfer(); t.items.add(new File([b], \(Browser.literal(name))));
              const input = document.getElementById('file'); input.files = t.files; input.dispatchEvent(new Event('change')); return true; })()
            """)
    }

    /// The page's first "Save" link clicked: the file Chromium saves, once complete.
    private func savedBytes(_ browser: Browser, name: String) throws -> Data? {
        let dir = Harness.temporaryDirectory()
        try browser.saveDownloads(into: dir)
        _ = try browser.eval("document.querySelector('#messages li.file a[download]').click() || true")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            if entries == [name] { return FileManager.default.contents(atPath: dir + "/" + name) }
            usleep(100_000)
        }
        return nil
    }
}
