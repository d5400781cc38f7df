import ChatClient
import PeerConnection
import Runtime
import STUN

/// The sockets follow the machine's addresses: when the network changes
/// (the chat's `NetworkWatcher` saw it), a socket is bound for each new
/// address and the sockets of vanished ones are closed, and the connection
/// hears which bases came and went (it restarts ICE or tells the peer; see
/// `PeerConnection+NetworkChange`).
extension PeerLink {
    /// `addresses`: the machine's usable addresses now.
    func networkChanged(to addresses: Set<SocketAddress>) {
        guard !closed else { return }
        var removed: [STUNAddress] = []
        // Compared as bound (a link-local address with its zone).
        for (base, socket) in sockets {
            let address = socket.localAddress.with(port: 0)
            guard !addresses.contains(address) else { continue }
            socket.close()
            sockets[base] = nil
            removed.append(base)
        }
        let bound = Set(sockets.values.map { $0.localAddress.with(port: 0) })
        var added: [STUNAddress] = []
        for address in addresses.subtracting(bound).sorted(by: { $0.description < $1.description }) {
            guard let (base, socket) = Self.bind(address, loop: loop) else { continue }
            listen(socket, on: base)
            added.append(base)
        }
        connection.localAddressesChanged(added: added, removed: removed, now: loop.now.duration)
        pump()
    }
}
