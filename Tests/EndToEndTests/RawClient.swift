import Foundation
import Glibc

/// A blocking TCP client on 127.0.0.1 that can misbehave on purpose: send
/// from another loopback address (another client to the server), shrink
/// its receive buffer and never read, speak raw WebSocket frames.
final class RawClient {
    let fd: Int32

    /// `source`: the loopback address to send from; `receiveBuffer`: a small
    /// SO_RCVBUF so the kernel stops taking the server's output early.
    init?(port: UInt16, source: String = "127.0.0.1", receiveBuffer: Int32? = nil) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        _ = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        setTimeouts(send: 5, receive: 30)
        guard Harness.withLoopback(port: port, { connect(fd, $0, $1) }) == 0 else {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    func setTimeouts(send: Int, receive: Int) {
        var s = timeval(tv_sec: send, tv_usec: 0), r = timeval(tv_sec: receive, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &s, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &r, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends as much of `bytes` as the server takes before a send times out
    /// (it stopped reading); returns how much that was.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Int {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            sent += n
        }
        return sent
    }

    /// Reads until `done` says the bytes so far are enough, or end of
    /// stream, an error or the receive timeout.
    func read(until done: ([UInt8]) -> Bool) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !done(received) {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            received += chunk[0..<n]
        }
        return received
    }

    /// Waits (without reading) until the server closed or reset the
    /// connection; false if `timeout` seconds pass first.
    func waitUntilClosedByPeer(timeout: Int32) -> Bool {
        // 0x2000: POLLRDHUP (Linux), which Glibc does not export to Swift.
        var entry = pollfd(fd: fd, events: Int16(0x2000), revents: 0)
        let ready = poll(&entry, 1, timeout * 1000)
        return ready == 1 && entry.revents & Int16(0x2000 | POLLHUP | POLLERR) != 0
    }

    // MARK: WebSocket (RFC 6455, client side)

    /// The upgrade handshake; true on `101`.
    func upgradeToWebSocket(port: UInt16) -> Bool {
        send(Array(("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            guard recv(fd, &byte, 1, 0) == 1 else { return false }
            head.append(byte)
        }
        return String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101")
    }

    /// One masked text frame (the mask is zero: allowed, and it keeps the payload readable).
    static func textFrame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> (56 - 8 * $0)) }
        }
        return frame + [0, 0, 0, 0] + payload
    }

    /// Reads server frames until one's text contains `needle`; all texts read.
    func readFrames(until needle: String) -> [String] {
        var texts: [String] = []
        var buffer: [UInt8] = []
        _ = read { bytes in
            buffer = bytes
            texts = RawClient.texts(in: buffer)
            return texts.contains { $0.contains(needle) }
        }
        return texts
    }

    /// The text frames (unmasked, as a server sends them) complete in `bytes`.
    static func texts(in bytes: [UInt8]) -> [String] {
        var texts: [String] = []
        var at = 0
        while at + 2 <= bytes.count {
            var length = Int(bytes[at + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard at + 4 <= bytes.count else { break }
                length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                header = 4
            } else if length == 127 {
                guard at + 10 <= bytes.count else { break }
                length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
                header = 10
            }
            guard at + header + length <= bytes.count else { break }
            if bytes[at] & 0x0F == 1 { texts.append(String(decoding: bytes[(at + header)..<(at + header + length)], as: UTF8.self)) }
            at += header + length
        }
        return texts
    }
}

/// The server's memory from /proc: resident now and its peak, in bytes.
enum ProcessMemory {
    static func kilobytes(_ field: String, pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    static func resident(_ pid: Int32) -> Int { (kilobytes("VmRSS", pid: pid) ?? 0) * 1024 }
    static func peak(_ pid: Int32) -> Int { (kilobytes("VmHWM", pid: pid) ?? 0) * 1024 }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
