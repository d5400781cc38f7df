import Foundation
import Glibc

/// One blocking HTTP/1.1 exchange on 127.0.0.1 with its status, headers and JSON body.
struct HTTPExchange {
    var status: Int
    var head: String
    /// The body parsed as a JSON object (empty if it is not one).
    var body: [String: Any]
    var bodyText: String = ""

    func header(_ name: String) -> String? {
        for line in head.components(separatedBy: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// `source`: the loopback address to send from (127.0.0.2 is another client than 127.0.0.1).
    /// `raw`: a body sent as is (JSON text), instead of `json`.
    static func send(_ method: String, port: UInt16, _ target: String, _ json: [String: Any]? = nil, raw: String? = nil,
                     source: String? = nil, headers: String = "") -> HTTPExchange {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            _ = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        var timeout = timeval(tv_sec: 45, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Harness.withLoopback(port: port, { connect(fd, $0, $1) }) == 0 else { return HTTPExchange(status: 0, head: "connect failed", body: [:]) }
        let body = raw ?? json.flatMap { try? JSONSerialization.data(withJSONObject: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            + headers + (body.isEmpty ? "" : "Content-Type: application/json\r\n") + "Content-Length: \(body.utf8.count)\r\n\r\n"
        let bytes = Array((head + body).utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += chunk[0..<n]
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let split = text.range(of: "\r\n\r\n")
        let responseHead = split.map { String(text[..<$0.lowerBound]) } ?? text
        let responseBody = split.map { String(text[$0.upperBound...]) } ?? ""
        let parsed = (try? JSONSerialization.jsonObject(with: Data(responseBody.utf8))) as? [String: Any] ?? [:]
        return HTTPExchange(status: status, head: responseHead, body: parsed, bodyText: responseBody)
    }
}
