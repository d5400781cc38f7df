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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        guard Harness.withLoopback(port: port, { connect(fd, $0, $1) }) == 0 else { return (0, "connect failed") }
        let body = json ?? ""
        let head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            + (json == nil ? "" : "Content-Type: application/json\r\n") + "Content-Length: \(body.utf8.count)\r\n\r\n"
        let bytes = Array((head + body).utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += chunk[0..<n]
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let responseBody = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, responseBody)
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
