import Foundation
import Testing
import TestSupport

/// A network namespace (`Tools/lib/browser/netns`) holding a real `chatcli
/// serve` on 198.18.64.1:8080, for tests with headless browsers: browsers
/// ignore loopback for ICE, so everything runs on a veth address instead.
/// With `tls`, the server speaks HTTPS/WSS with a throwaway certificate
/// (the browsers are told to accept it); with `turn`, a real coturn runs on
/// 198.18.64.1:3478 and the server hands out TURN REST credentials for it;
/// with `relay`, the server's own relay does, its relayed addresses in
/// `relayPorts`.
/// Torn down (server stopped, namespace deleted) when released. Needs root.
final class BrowserLab {
    static let netns = Harness.packageRoot + "/Tools/lib/browser/netns"
    static let driver = Harness.packageRoot + "/Tools/lib/browser/driver.py"
    static let address = "198.18.64.1"
    /// The address's name inside the namespace (Tools/lib/browser/netns).
    static let hostName = "browser.lab"
    static let serverURL = "http://\(address):8080"
    static let turnPort = 3490   // the chat server answers STUN on 3478 and 3479
    static let relayPorts = 50000...50099
    static var available: Bool {
        getuid() == 0 && ["/usr/bin/chromium", "/usr/bin/firefox-esr"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }
    /// Screenshots are kept here for people to look at.
    static let artifacts = Harness.packageRoot + "/.build/test-artifacts/web"

    let name: String
    /// The server's base URL: `serverURL`, or its https twin with `tls`.
    let url: String
    private(set) var server: ChildProcess!
    private(set) var coturn: ChildProcess?
    /// The CA that signed the server's certificate (with `tls`), for chatcli.
    private(set) var caFile: String?
    private let serverArguments: [String]
    private let directory = Harness.temporaryDirectory()
    private static let counter = Counter()

    init(tls: Bool = false, turn: Bool = false, relay: Bool = false) throws {
        signal(SIGPIPE, SIG_IGN)   // a browser or chatcli that died must fail the test, not kill the runner
        name = "w2\(getpid())x\(Self.counter.next())"
        url = tls ? "https://\(Self.address):8080" : Self.serverURL
        let up = try ChildProcess(Self.netns, ["up", name], name: "netns up")
        guard up.waitForExit(timeout: 30) == 0 else { throw NATLabError(transcript: up.transcript) }
        var arguments = ["--db", directory + "/rooms.db"]
        if tls {
            let certificates = try TestCertificates.make(in: directory)
            arguments += ["--tls-cert", certificates.certFile, "--tls-key", certificates.keyFile]
            caFile = certificates.caFile
        }
        if relay {
            arguments += ["--turn-relay-ports", "\(Self.relayPorts.lowerBound)-\(Self.relayPorts.upperBound)"]
        } else if turn {
            let secret = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            try secret.write(toFile: directory + "/turn.secret", atomically: true, encoding: .utf8)
            coturn = try Self.startCoturn(secret: secret, directory: directory, lab: name)
            arguments += ["--turn-url", "turn:\(Self.address):\(Self.turnPort)?transport=udp",
                          "--turn-url", "turn:\(Self.address):\(Self.turnPort)?transport=tcp",
                          "--turn-secret-file", directory + "/turn.secret"]
        } else {
            // No relay at all (serve runs its own by default): these labs test the direct paths.
            arguments.append("--no-turn")
        }
        serverArguments = arguments
        try startServer()
    }

    /// Starts (or starts again, on the same address and database) the chat server.
    func startServer() throws {
        server = try exec([Harness.chatcliPath, "serve", "--host", Self.address, "--port", "8080"] + serverArguments, name: "server")
        guard server.waitForLine(stderr: true, timeout: 20, { $0.contains("event=listening") }) != nil else {
            throw HarnessError.serverDidNotStart(server.transcript)
        }
    }

    /// coturn (the `turnserver` of Debian's coturn) relaying on the lab's
    /// address, with TURN REST credentials from `secret`.
    private static func startCoturn(secret: String, directory: String, lab: String) throws -> ChildProcess {
        let config = """
            use-auth-secret
            static-auth-secret=\(secret)
            realm=chatcli.test
            listening-ip=\(Self.address)
            relay-ip=\(Self.address)
            listening-port=\(Self.turnPort)
            min-port=49200
            max-port=49400
            no-cli
            no-tls
            no-dtls
            log-file=\(directory)/turn.log
            simple-log
            no-stdout-log
            pidfile=\(directory)/turnserver.pid
            db=\(directory)/turndb

            """
        try config.write(toFile: directory + "/turnserver.conf", atomically: true, encoding: .utf8)
        let process = try ChildProcess(Self.netns, ["exec", lab, "--", Coturn.executable ?? "turnserver", "-c", directory + "/turnserver.conf"], name: "coturn")
        let log = directory + "/turn.log"
        for _ in 0..<200 where !((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("listener opened on") { usleep(50_000) }
        return process
    }

    /// Another `chatcli serve` in the namespace (plain HTTP on `port`, STUN
    /// on `stunPort` and the next), stopped when the lab is released.
    func serve(port: Int, stunPort: Int, _ arguments: [String]) throws -> String {
        let process = try exec([Harness.chatcliPath, "serve", "--host", Self.address, "--port", "\(port)", "--stun-port", "\(stunPort)",
                                "--db", directory + "/rooms-\(port).db"] + arguments, name: "server \(port)")
        others.append(process)
        guard process.waitForLine(stderr: true, timeout: 20, { $0.contains("event=listening") }) != nil else {
            throw HarnessError.serverDidNotStart(process.transcript)
        }
        return "http://\(Self.address):\(port)"
    }
    private var others: [ChildProcess] = []

    func exec(_ command: [String], name: String) throws -> ChildProcess {
        try ChildProcess(Self.netns, ["exec", self.name, "--"] + command, name: name)
    }

    /// `chatcli ARGS --server … --json --no-store` inside the namespace
    /// (`server`: another of the lab's servers), trusting the lab's CA.
    func chatcli(_ arguments: [String], server: String? = nil, name: String) throws -> ChildProcess {
        // The lab is about paths, not trust: a peer the code did not prove is accepted up front, as a script must say in advance.
        try exec([Harness.chatcliPath] + arguments + ["--server", server ?? url, "--json", "--no-store", "--accept-unproven"]
                 + (caFile.map { ["--ca-file", $0] } ?? []), name: name)
    }

    /// `chatcli create --auto-accept DIR` and Chromium opening its link, both connected.
    func chromiumJoinsChatcli(receivingInto dir: String) throws -> (ChildProcess, Browser) {
        let cli = try chatcli(["create", "--auto-accept", dir], name: "chatcli")
        let code = try #require(cli.waitForEvent("code", timeout: 20), "\(cli.transcript)")
        let browser = try browser("chromium")
        try browser.open(try #require(code["url"] as? String))
        try browser.waitForState("connected")
        #expect(cli.waitForEvent("connected", timeout: 30) != nil, "\(cli.transcript)")
        return (cli, browser)
    }

    /// `iptables -w ARGS` in the namespace (the path between its peers).
    func iptables(_ arguments: [String]) throws {
        let run = try exec(["iptables", "-w"] + arguments, name: "iptables")
        guard run.waitForExit(timeout: 30) == 0 else { throw BrowserError("iptables \(arguments): \(run.transcript)") }
    }

    /// The same, with `CHATCLI_DEBUG_SESSION` set: a trace of the session on standard error.
    func tracedChatcli(_ arguments: [String], name: String) throws -> ChildProcess {
        try exec(["/usr/bin/env", "CHATCLI_DEBUG_SESSION=1", Harness.chatcliPath] + arguments + ["--server", url, "--json", "--no-store", "--accept-unproven"],
                 name: name)
    }

    /// `mdns`: the browser's default of hiding host addresses behind `.local` names.
    /// `netlog`: a file for the browser's own log of every request it makes
    /// (complete once `quitAndWait` returns).
    func browser(_ kind: String, name: String? = nil, mdns: Bool = false, netlog: String? = nil) throws -> Browser {
        try Browser(lab: self, kind: kind, name: name ?? kind, mdns: mdns, netlog: netlog)
    }

    deinit {
        server?.stop()
        for other in others { other.stop() }
        if let coturn {
            coturn.signal(SIGKILL)
            _ = coturn.waitForExit(timeout: 10)
        }
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

    init(lab: BrowserLab, kind: String, name: String, mdns: Bool, netlog: String? = nil) throws {
        self.kind = kind
        process = try lab.exec([Harness.pythonPath, BrowserLab.driver, kind] + (mdns ? ["--mdns"] : []) + (netlog.map { ["--netlog", $0] } ?? [])
                               + (lab.caFile.map { ["--ca", $0] } ?? []), name: name)
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
            throw BrowserError("\(kind): timed out waiting for \(what) (last: \(reply["last"] ?? "nil")); the page: \(snapshot())")
        }
        return value
    }

    /// What the page shows (its data attributes, status, error and last lines), for a failure's message.
    func snapshot() -> String {
        let js = """
            JSON.stringify({ dataset: { ...document.body.dataset }, status: document.getElementById('status')?.textContent,
              error: document.getElementById('error')?.textContent,
              lines: [...document.querySelectorAll('#messages li')].slice(-8).map(e => e.textContent) })
            """
        return ((try? eval(js)) as? String) ?? "(no answer)"
    }

    /// Chromium saves what a download link gives into `path` (the page's "Save" links).
    func saveDownloads(into path: String) throws { try command(["cmd": "downloads", "path": path]) }

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

    /// Types a code into the join form and submits it, as a person would.
    func typeCode(_ code: String) throws {
        _ = try eval("(() => { document.getElementById('join-code').value = \(Self.literal(code)); "
            + "document.getElementById('join-form').requestSubmit(); return true; })()")
    }

    func click(_ id: String) throws { _ = try eval("document.getElementById(\(Self.literal(id))).click() || true") }

    static func literal(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The driver ignores SIGTERM (blocked in test children): ask it to
    /// quit, then SIGKILL; the browser dies with it (PR_SET_PDEATHSIG).
    func quit() {
        guard !ended else { return }
        process.write("{\"cmd\":\"quit\"}\n")
        process.closeInput()
        usleep(300_000)
        process.signal(SIGKILL)
        _ = process.waitForExit(timeout: 10)
    }

    /// Closes the browser itself (so its logs are complete) and waits for the driver to end.
    func quitAndWait() -> Int32? {
        process.write("{\"cmd\":\"quit\"}\n")
        process.closeInput()
        ended = true
        return process.waitForExit(timeout: 90)
    }
    private var ended = false

    deinit { quit() }
}

struct BrowserError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
