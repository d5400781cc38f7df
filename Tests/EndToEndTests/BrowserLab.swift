import Foundation
import Testing

/// A network namespace (`Tools/lib/browser/netns`) holding a real `chatcli
/// serve` on 198.18.64.1:8080, for tests with headless browsers: browsers
/// ignore loopback for ICE, so everything runs on a veth address instead.
/// Torn down (server stopped, namespace deleted) when released. Needs root.
final class BrowserLab {
    static let netns = Harness.packageRoot + "/Tools/lib/browser/netns"
    static let driver = Harness.packageRoot + "/Tools/lib/browser/driver.py"
    static let serverURL = "http://198.18.64.1:8080"
    static var available: Bool {
        getuid() == 0 && ["/usr/bin/chromium", "/usr/bin/firefox-esr"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }
    /// Screenshots are kept here for people to look at.
    static let artifacts = Harness.packageRoot + "/.build/test-artifacts/web"

    let name: String
    private(set) var server: ChildProcess!
    private static let counter = LabCounter()

    init() throws {
        name = "wb\(getpid())x\(Self.counter.next())"
        let up = try ChildProcess(Self.netns, ["up", name], name: "netns up")
        guard up.waitForExit(timeout: 30) == 0 else { throw NATLabError(transcript: up.transcript) }
        let db = Harness.temporaryDirectory() + "/rooms.db"
        server = try exec([Harness.chatcliPath, "serve", "--host", "198.18.64.1", "--port", "8080", "--db", db], name: "server")
        guard server.waitForLine(stderr: true, timeout: 20, { $0.contains("event=listening") }) != nil else {
            throw HarnessError.serverDidNotStart(server.transcript)
        }
    }

    func exec(_ command: [String], name: String) throws -> ChildProcess {
        try ChildProcess(Self.netns, ["exec", self.name, "--"] + command, name: name)
    }

    /// `chatcli ARGS --server … --json --no-store` inside the namespace.
    func chatcli(_ arguments: [String], name: String) throws -> ChildProcess {
        try exec([Harness.chatcliPath] + arguments + ["--server", Self.serverURL, "--json", "--no-store"], name: name)
    }

    func browser(_ kind: String, name: String? = nil) throws -> Browser {
        try Browser(lab: self, kind: kind, name: name ?? kind)
    }

    deinit {
        server?.stop()
        let down = try? ChildProcess(Self.netns, ["down", name], name: "netns down")
        _ = down?.waitForExit(timeout: 30)
    }
}

/// One headless browser (`Tools/lib/browser/driver.py`): commands as JSON
/// lines in, events as JSON lines out. Everything waits on the page's own
/// state with generous deadlines (browsers start slowly on a busy machine).
final class Browser {
    let process: ChildProcess
    let kind: String
    private var consumed = 0

    init(lab: BrowserLab, kind: String, name: String) throws {
        self.kind = kind
        process = try lab.exec([Harness.pythonPath, BrowserLab.driver, kind], name: name)
        let ready = next(timeout: 120)
        guard ready?["event"] as? String == "ready" else { throw BrowserError("\(kind) did not start: \(ready ?? [:])\n\(process.transcript)") }
    }

    /// The next event line not yet taken, or nil at the deadline.
    private func next(timeout: TimeInterval) -> [String: Any]? {
        // waitForLine offers each line once, in order: skip those taken before.
        var index = 0
        let skip = consumed
        let line = process.waitForLine(timeout: timeout) { _ in
            defer { index += 1 }
            return index >= skip
        }
        guard let line else { return nil }
        consumed += 1
        return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    @discardableResult
    func command(_ object: [String: Any], timeout: TimeInterval = 60) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: object)
        process.write(String(decoding: data, as: UTF8.self) + "\n")
        guard let reply = next(timeout: timeout) else { throw BrowserError("\(kind): no answer to \(object["cmd"] ?? "?")\n\(process.transcript)") }
        if reply["event"] as? String == "error" { throw BrowserError("\(kind): \(reply["message"] ?? "")") }
        return reply
    }

    func open(_ url: String) throws { try command(["cmd": "open", "url": url], timeout: 60) }

    func eval(_ js: String) throws -> Any? { try command(["cmd": "eval", "js": js])["value"] }

    /// The first truthy value of `js`, polled until `timeout`.
    func wait(_ js: String, timeout: TimeInterval = 60, _ what: String) throws -> Any {
        let reply = try command(["cmd": "wait", "js": js, "timeout": timeout], timeout: timeout + 30)
        guard reply["event"] as? String == "result", let value = reply["value"] else {
            throw BrowserError("\(kind): timed out waiting for \(what) (last: \(reply["last"] ?? "nil"))")
        }
        return value
    }

    func screenshot(_ path: String, width: Int, height: Int) throws -> [String: Any] {
        try command(["cmd": "screenshot", "path": path, "width": width, "height": height])
    }

    // MARK: The page

    func state() throws -> String { try eval("document.body.dataset.state") as? String ?? "" }

    func waitForState(_ state: String, timeout: TimeInterval = 60) throws {
        _ = try wait("document.body.dataset.state === \(Self.literal(state))", timeout: timeout, "state \(state)")
    }

    func safetyWords() throws -> String { try eval("document.getElementById('sas').textContent") as? String ?? "" }

    /// Types each text into the message box and sends it, as a person would.
    func send(_ texts: [String]) throws {
        _ = try eval("""
            (() => { const m = document.getElementById('message'), f = document.getElementById('send-form');
              for (const t of \(Self.literal(texts))) { m.value = t; f.requestSubmit(); } return true; })()
            """)
    }

    /// The peer's messages on screen, once there are `count` of them.
    func peerMessages(count: Int, timeout: TimeInterval = 60) throws -> [String] {
        let js = "(() => { const t = [...document.querySelectorAll('#messages li.peer .text')].map(e => e.textContent);"
            + " return t.length >= \(count) ? t : null; })()"
        return try wait(js, timeout: timeout, "\(count) peer messages") as? [String] ?? []
    }

    func click(_ id: String) throws { _ = try eval("document.getElementById(\(Self.literal(id))).click() || true") }

    static func literal(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The driver ignores SIGTERM (blocked in test children): ask it to
    /// quit, then SIGKILL; the browser dies with it (PR_SET_PDEATHSIG).
    func quit() {
        process.write("{\"cmd\":\"quit\"}\n")
        process.closeInput()
        usleep(300_000)
        process.signal(SIGKILL)
        _ = process.waitForExit(timeout: 10)
    }

    deinit { quit() }
}

struct BrowserError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private final class LabCounter: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}
