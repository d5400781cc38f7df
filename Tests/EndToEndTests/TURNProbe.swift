import Foundation
import STUN

/// A hand-driven TURN client over UDP on 127.0.0.1, for what chatcli never
/// does (allocating again and again). Blocking reads with a receive
/// timeout: a test waits on the answer, never on a sleep.
final class TURNProbe {
    let fd: Int32
    private let stream: Bool
    private var counter: UInt64 = 0
    private var buffered: [UInt8] = []

    /// UDP to `port`, or TCP (`stream`) with a small receive buffer, so a
    /// probe that stops reading backs the server up quickly.
    init(port: UInt16, stream: Bool = false) throws {
        self.stream = stream
        fd = socket(AF_INET, Int32(stream ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var small: Int32 = 4096
        if stream { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size)) }
        guard Harness.withLoopback(port: port, { connect(fd, $0, $1) }) == 0 else { throw ProbeError.cannotConnect }
    }

    deinit { close(fd) }

    enum ProbeError: Error { case cannotConnect, noAnswer }

    /// One request, its answer.
    func exchange(_ message: STUNMessage, key: STUNKey? = nil) throws -> STUNMessage {
        let bytes = message.encoded(integrity: key, fingerprint: true)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw ProbeError.noAnswer }
            var frames = [Array(buffer[0..<n])]
            if stream {
                buffered += buffer[0..<n]
                frames = []
                while buffered.count >= 20, let length = STUNMessage.frameLength(of: buffered[...]), buffered.count >= length {
                    frames.append(Array(buffered.prefix(length)))
                    buffered.removeFirst(length)
                }
            }
            for frame in frames {
                if let reply = try? STUNMessage.decode(frame), reply.transactionID == message.transactionID { return reply }
            }
        }
    }

    /// Reads until the server closes or resets the connection; false if
    /// it is still open after `timeout` seconds of silence.
    func waitForClose() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 || (n < 0 && errno == ECONNRESET) { return true }
            if n < 0 { return false }
        }
    }

    private var signing: (username: String, realm: String, nonce: String, key: STUNKey)?
    private(set) var relayed: STUNAddress?

    /// Allocates with REST credentials (asking for an even port with
    /// `evenPort`, RFC 8656 §14.6); 0 on success, else the error code.
    func allocate(username: String, password: String, evenPort: Bool = false) throws -> Int {
        let wanted: [STUNAttribute] = [.requestedTransport(17)] + (evenPort ? [.evenPort(reserveNextPort: false)] : [])
        let challenge = try exchange(request(.allocate, wanted))
        guard let realm = challenge.realm, let nonce = challenge.nonce,
              let key = STUNKey.longTerm(username: username, realm: realm, password: password) else { return challenge.errorCode?.code ?? -1 }
        signing = (username, realm, nonce, key)
        let signed = request(.allocate, wanted + [.username(username), .realm(realm), .nonce(nonce)])
        let reply = try exchange(signed, key: key)
        relayed = reply.xorRelayedAddress
        return reply.type.messageClass == .successResponse ? 0 : reply.errorCode?.code ?? -1
    }

    /// CreatePermission on the allocation; 0 on success, else the error code.
    func createPermission(_ peer: STUNAddress) throws -> Int {
        guard let signing else { return -1 }
        let reply = try exchange(request(.createPermission, [.xorPeerAddress(peer), .username(signing.username), .realm(signing.realm),
                                                             .nonce(signing.nonce)]), key: signing.key)
        return reply.type.messageClass == .successResponse ? 0 : reply.errorCode?.code ?? -1
    }

    private func request(_ method: STUNMethod, _ attributes: [STUNAttribute]) -> STUNMessage {
        counter += 1
        return STUNMessage(type: STUNMessageType(method: method, messageClass: .request),
                           transactionID: STUNTransactionID(high: UInt32(truncatingIfNeeded: getpid()), low: counter &+ UInt64(fd) << 32),
                           attributes: attributes)
    }
}
