import Runtime
import STUN

/// The TCP connections to TURN servers (RFC 8656 over TCP) that an ICE
/// agent's `.turnStream` transmits ask for: opened on the first bytes for a
/// server, which wait until the connection is up; what arrives and the
/// closing are reported per server.
final class TURNStreams {
    private struct Stream {
        var connection: TCPConnection?
        var pending: [UInt8] = []
        /// Failed or closed: the allocation is gone, bytes are dropped.
        var lost = false
    }

    let loop: EventLoop
    private var streams: [STUNAddress: Stream] = [:]
    private var closed = false
    var onData: ((STUNAddress, [UInt8]) -> Void)?
    var onClose: ((STUNAddress) -> Void)?

    init(loop: EventLoop) {
        self.loop = loop
    }

    func write(_ bytes: [UInt8], to server: STUNAddress) {
        guard !closed else { return }
        if let connection = streams[server]?.connection {
            connection.write(bytes)
            return
        }
        if let stream = streams[server] {
            if !stream.lost && stream.pending.count < 1 << 20 { streams[server]?.pending += bytes }
            return
        }
        streams[server] = Stream(pending: bytes)
        guard let address = SocketAddress(server) else { return lost(server) }
        TCPConnection.connect(loop: loop, to: address, timeout: .seconds(10)) { [weak self] result in
            guard let self, !self.closed else {
                if case .success(let connection) = result { connection.abort() }
                return
            }
            switch result {
            case .success(let connection): self.opened(connection, server: server)
            case .failure: self.lost(server)
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

    private func opened(_ connection: TCPConnection, server: STUNAddress) {
        connection.onData = { [weak self] bytes in self?.onData?(server, bytes) }
        connection.onClose = { [weak self] _ in self?.lost(server) }
        let pending = streams[server]?.pending ?? []
        streams[server] = Stream(connection: connection)
        if !pending.isEmpty { connection.write(pending) }
    }

    /// The connection could not be opened or it closed: later bytes for the
    /// server are dropped (its allocation is gone with the connection).
    private func lost(_ server: STUNAddress) {
        guard streams[server]?.lost != true else { return }
        streams[server] = Stream(connection: nil, pending: [], lost: true)
        onClose?(server)
    }
}
