import Runtime
import STUN

/// The STUN Binding responder (RFC 8489) on `port` and `port + 1`; each
/// names the other in OTHER-ADDRESS (RFC 5780) so clients can classify
/// their NAT's mapping behaviour.
final class STUNService {
    private var sockets: [UDPSocket] = []

    /// A wildcard `host` binds each local address separately, so every
    /// answer knows the address it came in on (for OTHER-ADDRESS and
    /// RESPONSE-ORIGIN) and leaves from it.
    private let relay: RelayService?

    /// With a `relay`, every datagram that is not a Binding request goes to it:
    /// TURN shares the STUN port, as RFC 8656 §4 allows.
    init(loop: EventLoop, host: SocketAddress, port: UInt16, relay: RelayService? = nil) throws(RuntimeError) {
        self.relay = relay
        guard port < UInt16.max else { throw RuntimeError(kind: .invalidArgument, reason: "the STUN port must be below 65535 (it uses the next port too)") }
        let hosts = host.isUnspecified
            ? NetworkInterfaces.addresses(includeLoopback: true).filter { host.family == .ipv6 || $0.family == .ipv4 }
            : [host]
        var firstError: RuntimeError?
        for address in hosts {
            do {
                try bind(loop: loop, host: address, port: port)
            } catch {
                // An address that cannot be bound (say, a tentative IPv6 one) is skipped,
                // unless it was the one asked for.
                if !host.isUnspecified { throw error }
                firstError = firstError ?? error
            }
        }
        if sockets.isEmpty { throw firstError ?? RuntimeError(kind: .invalidArgument, reason: "no local address for STUN") }
    }

    private func bind(loop: EventLoop, host: SocketAddress, port: UInt16) throws(RuntimeError) {
        for (mine, other) in [(port, port + 1), (port + 1, port)] {
            let socket = try UDPSocket(loop: loop, bind: host.with(port: mine))
            let responder = STUNResponder(software: "chatcli", otherAddress: .port(other))
            let local = STUNAddress(host.with(port: mine))
            relay?.register(udp: socket)
            socket.onDatagram = { [weak socket, relay] bytes, source in
                guard let socket else { return }
                if let relay, !Self.isBindingRequest(bytes) {
                    relay.receive(datagram: bytes, from: source, on: socket)
                    return
                }
                guard let from = STUNAddress(source), let local,
                      let reply = responder.respond(to: bytes, from: from, receivedOn: local) else { return }
                socket.send(reply, to: source)
            }
            sockets.append(socket)
        }
    }

    /// Binding requests stay with the responder (it also honours RFC 5780's
    /// CHANGE-REQUEST); everything else is TURN.
    private static func isBindingRequest(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x00 && bytes[1] == 0x01
    }

    func close() {
        for socket in sockets { socket.close() }
        sockets = []
    }
}

extension STUNAddress {
    init?(_ address: SocketAddress) {
        self.init(ip: address.ipBytes, port: address.port)
    }
}
