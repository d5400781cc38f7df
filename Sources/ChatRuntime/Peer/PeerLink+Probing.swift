import ChatClient
import ICE
import PeerConnection
import Runtime
import STUN

/// `--hard-nat-probing`: the sockets birthday-paradox port probing needs
/// (see `PortProbingConfig` for the design).
extension PeerLink {
    /// Each STUN server and the port after it: `chatcli serve` answers on
    /// both, and two answers from one IP tell an easy NAT (the same mapped
    /// address) from a hard one (a new port per destination). Behind
    /// another server that is silent on the next port, the srflx candidate
    /// waits for that lookup to time out (5.5 s) and goes out untagged.
    static func stunServers(_ servers: [STUNAddress], probing: Bool) -> [STUNAddress] {
        guard probing else { return servers }
        return servers.flatMap { server in
            [server] + (server.port < UInt16.max ? [STUNAddress(ip: server.ip, port: server.port + 1)].compactMap { $0 } : [])
        }
    }

    /// Opens the sockets the hard side asks for (on its base's IP) and
    /// closes the ones no longer needed.
    func serviceProbeSockets() {
        if let request = connection.pollProbeSocketRequest(), let ip = SocketAddress(request.base) {
            var bases: [STUNAddress] = []
            for _ in 0..<request.count {
                // Running out of descriptors just means fewer probes.
                guard let (base, socket) = Self.bind(ip, loop: loop) else { break }
                listen(socket, on: base)
                bases.append(base)
            }
            connection.addProbeBases(bases, now: loop.now.duration)
        }
        for base in connection.pollReleasedProbeBases() {
            sockets.removeValue(forKey: base)?.close()
        }
    }
}
