import ChatClient
import Runtime
import STUN

/// The sans-IO cores name addresses as `STUNAddress`; the runtime's sockets
/// as `SocketAddress`.
extension STUNAddress {
    public init?(_ address: SocketAddress) { self.init(ip: address.ipBytes, port: address.port) }
}

extension SocketAddress {
    public init?(_ address: STUNAddress) { self.init(ipBytes: address.ip, port: address.port) }
}
