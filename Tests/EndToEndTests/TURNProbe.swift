import Foundation
import STUN

/// A hand-driven TURN client over UDP on 127.0.0.1, for what chatcli never
/// does (allocating again and again). Blocking reads with a receive
/// timeout: a test waits on the answer, never on a sleep.
final class TURNProbe {
    private let fd: Int32
    private var counter: UInt64 = 0

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
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
            if let reply = try? STUNMessage.decode(Array(buffer[0..<n])), reply.transactionID == message.transactionID { return reply }
        }
    }

    /// Allocates with REST credentials; 0 on success, else the error code.
    func allocate(username: String, password: String) throws -> Int {
        let challenge = try exchange(request(.allocate, [.requestedTransport(17)]))
        guard let realm = challenge.realm, let nonce = challenge.nonce,
              let key = STUNKey.longTerm(username: username, realm: realm, password: password) else { return challenge.errorCode?.code ?? -1 }
        let signed = request(.allocate, [.requestedTransport(17), .username(username), .realm(realm), .nonce(nonce)])
        let reply = try exchange(signed, key: key)
        return reply.type.messageClass == .successResponse ? 0 : reply.errorCode?.code ?? -1
    }

    private func request(_ method: STUNMethod, _ attributes: [STUNAttribute]) -> STUNMessage {
        counter += 1
        return STUNMessage(type: STUNMessageType(method: method, messageClass: .request),
                           transactionID: STUNTransactionID(high: UInt32(truncatingIfNeeded: getpid()), low: counter &+ UInt64(fd) << 32),
                           attributes: attributes)
    }
}
