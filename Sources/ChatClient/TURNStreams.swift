import Runtime
import STUN

/// The TCP connections to TURN servers (RFC 8656 over TCP) that an ICE
/// agent's `.turnStream` transmits ask for: opened on the first bytes for a
/// server, which wait until the connection is up; what arrives and the
/// closing are reported per server.
final class TURNStreams {
    private struct Stream {
        /// Tells this connection's callbacks from those of one it replaced.
        let id: Int
        var connection: TCPConnection?
        var pending: [UInt8] = []
    }

    let loop: EventLoop
    private var streams: [STUNAddress: Stream] = [:]
    private var nextID = 0
    private var closed = false
    var onData: ((STUNAddress, [UInt8]) -> Void)?
    var onClose: ((STUNAddress) -> Void)?

    init(loop: EventLoop) {
        self.loop = loop
    }

    func write(_ bytes: [UInt8], to server: STUNAddress) {
        guard !closed else { return }
        if let stream = streams[server] {
            if let connection = stream.connection {
                connection.write(bytes)
            } else if stream.pending.count < 1 << 20 {
                streams[server]?.pending += bytes
            }
            return
        }
        nextID += 1
        let id = nextID
        streams[server] = Stream(id: id, pending: bytes)
        guard let address = SocketAddress(server) else { return lost(server, id: id) }
        TCPConnection.connect(loop: loop, to: address, timeout: .seconds(10)) { [weak self] result in
            guard let self, !self.closed, self.streams[server]?.id == id else {
                if case .success(let connection) = result { connection.abort() }
                return
            }
            switch result {
            case .success(let connection): self.opened(connection, server: server, id: id)
            case .failure: self.lost(server, id: id)
            }
        }
    }

    /// Closes every connection after what was written (a deallocation) is sent.
    func closeAll() {
        closed = true
        for stream in streams.values {
            stream.connection?.onData = nil
            stream.connection?.onClose = nil
            stream.connection?.close()
        }
        streams = [:]
        onData = nil
        onClose = nil
    }

    private func opened(_ connection: TCPConnection, server: STUNAddress, id: Int) {
        connection.onData = { [weak self] bytes in
            guard let self, self.streams[server]?.id == id else { return }
            self.onData?(server, bytes)
        }
        connection.onClose = { [weak self] _ in self?.lost(server, id: id) }
        let pending = streams[server]?.pending ?? []
        streams[server] = Stream(id: id, connection: connection)
        if !pending.isEmpty { connection.write(pending) }
    }

    /// The connection could not be opened or it closed: its allocation is
    /// gone with it (RFC 8656 §5). The next bytes for the server (only a
    /// new allocation's: the old client says nothing after the loss) open
    /// a new connection.
    private func lost(_ server: STUNAddress, id: Int) {
        guard streams[server]?.id == id else { return }
        streams[server] = nil
        onClose?(server)
    }
}
