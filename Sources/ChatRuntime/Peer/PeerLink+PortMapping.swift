import ChatClient
import PortMapping
import Runtime
import STUN

/// `--no-port-mapping` turns this off: the ICE socket on the default
/// gateway's network is mapped by the gateway (PortMapping), and the
/// mapping is one more candidate, trickled whenever it arrives, so a peer
/// behind a NAT that would need a relay can come in directly. The mapping
/// is deleted when the link shuts down (a normal end, Ctrl-C, SIGTERM); a
/// crash leaves at most its lease.
extension PeerLink {
    func startPortMapping() {
        guard let route = DefaultGateway.ipv4(),
              let base = DefaultGateway.base(among: Array(sockets.keys), interface: route.interface),
              let link = PortMapperLink(loop: loop, base: base, gateway: route.gateway)
        else { return }
        portMapper = link
        link.onEvent = { [weak self] event in
            guard let self, !self.closed else { return }
            switch event {
            case .mapped(let mapping):
                self.connection.addMappedCandidate(mapping.external, base: base, now: self.loop.now.duration)
            case .lost(let mapping):
                self.connection.removeMappedCandidate(mapping.external, now: self.loop.now.duration)
            case .unavailable:
                return
            }
            self.pump()
        }
        link.start()
    }
}
