import Foundation
import Testing

/// A private `$XDG_DATA_HOME` for one simulated machine's session store, and
/// ways to run `chatcli` against it.
struct StoreHome {
    let dataHome = Harness.temporaryDirectory()
    var storePath: String { dataHome + "/chatcli/sessions.v1" }
    var storeExists: Bool { FileManager.default.fileExists(atPath: storePath) }

    func environment(passphrase: String? = "correct horse") -> [String: String] {
        var env = ["XDG_DATA_HOME": dataHome]
        if let passphrase { env["CHATCLI_PASSPHRASE"] = passphrase }
        return env
    }

    func chatcli(_ arguments: [String], name: String, passphrase: String? = "correct horse") throws -> ChildProcess {
        try ChildProcess.chatcli(arguments, name: name, environment: environment(passphrase: passphrase))
    }

    /// Runs a short command to the end with `input` on stdin.
    func run(_ arguments: [String], input: String = "", passphrase: String? = "correct horse") throws -> Finished {
        let p = try chatcli(arguments, name: arguments.prefix(2).joined(separator: " "), passphrase: passphrase)
        p.write(input)
        p.closeInput()
        let status = p.waitForExit(timeout: 30)
        return Finished(status: status, stdout: p.stdout, stderr: p.stderr, transcript: p.transcript)
    }

    /// `chatcli sessions --json`, one dictionary per session.
    func sessions(passphrase: String = "correct horse") throws -> [[String: Any]] {
        let result = try run(["sessions", "--json"], passphrase: passphrase)
        #expect(result.status == 0, "\(result.transcript)")
        return result.stdout.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func session(_ name: String) throws -> [String: Any]? {
        try sessions().first { $0["name"] as? String == name }
    }

    var storeBytes: Data? { FileManager.default.contents(atPath: storePath) }

    var storeMode: Int? {
        (try? FileManager.default.attributesOfItem(atPath: storePath))?[.posixPermissions] as? Int
    }
}

struct Finished {
    let status: Int32?
    let stdout: [String]
    let stderr: [String]
    let transcript: String
    var errorText: String { stderr.joined(separator: "\n") }
}

/// A blocking HTTP/1.1 request to the test server on 127.0.0.1, to check the
/// server's side of a purge through the REST API (WireProtocol §1).
enum REST {
    static func request(_ method: String, port: UInt16, _ target: String, json: String? = nil) -> (status: Int, body: String) {
        let exchange = HTTPExchange.send(method, port: port, target, raw: json)
        return (exchange.status, exchange.status == 0 ? "connect failed" : exchange.bodyText)
    }

    /// 201 when the code is free, 409 while a room holds it.
    static func createRoom(port: UInt16, code: String) -> Int {
        request("POST", port: port, "/api/rooms",
                json: #"{"joinid":"\#(code)","expiresInSeconds":60,"client1":"probe-\#(UUID().uuidString.prefix(8))"}"#).status
    }

    static func room(port: UInt16, id: String) -> [String: Any]? {
        let (status, body) = request("GET", port: port, "/api/rooms?roomid=\(id)")
        guard status == 200 else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    }
}
