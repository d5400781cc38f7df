import ChatClient
import ICE
import Runtime
import STUN
import TURN

/// The TCP connections to TURN servers (RFC 8656 over TCP, or over TLS for
/// `turns:`) that an ICE agent's `.turnStream` transmits ask for: opened on
/// the first bytes for a server, which wait until the connection is up;
/// what arrives and the closing (with why) are reported per server.
final class TURNStreams {
    private struct Stream {
        /// Tells this connection's callbacks from those of one it replaced.
        let id: Int
        var connection: (any ByteStream)?
        var pending: [UInt8] = []
    }

    let loop: EventLoop
    /// TLS server names of the `turns:` servers, by address.
    private let tlsNames: [STUNAddress: String]
    private let caFile: String?
    private var tls: TLSContext?
    private var streams: [STUNAddress: Stream] = [:]
    private var nextID = 0
    private var closed = false
    var onData: ((STUNAddress, [UInt8]) -> Void)?
    /// The stream ended or never opened: the server and why, in a sentence.
    var onClose: ((STUNAddress, TURNFailure) -> Void)?

    /// `servers`: those reached over TLS are told apart by their
    /// `tlsServerName`, checked against the system's CAs or `caFile`.
    init(loop: EventLoop, servers: [ICETURNServer] = [], caFile: String? = nil) {
        self.loop = loop
        var names: [STUNAddress: String] = [:]
        for server in servers { names[server.address] = server.tlsServerName }
        tlsNames = names
        self.caFile = caFile
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
        guard let address = SocketAddress(server) else { return lostLater(server, id: id, reason: .unreachable(server: "\(server)", detail: "not a usable socket address")) }
        let completion = { [weak self] (result: Result<any ByteStream, RuntimeError>) in
            guard let self, !self.closed, self.streams[server]?.id == id else {
                if case .success(let connection) = result { connection.abort() }
                return
            }
            switch result {
            case .success(let connection): self.opened(connection, server: server, id: id)
            case .failure(let error): self.lost(server, id: id, reason: .unreachable(server: "\(server)", detail: error.reason))
            }
        }
        guard let name = tlsNames[server] else {
            TCPConnection.connect(loop: loop, to: address, timeout: .seconds(10)) { completion($0.map { $0 as any ByteStream }) }
            return
        }
        do throws(RuntimeError) {
            let context: TLSContext
            if let tls {
                context = tls
            } else {
                context = try TLSContext.client(caFile: caFile)
                tls = context
            }
            TLSStream.connect(loop: loop, to: address, serverName: name, context: context, timeout: .seconds(10)) {
                completion($0.map { $0 as any ByteStream })
            }
        } catch {
            lostLater(server, id: id, reason: .tlsFailed(serverName: name, detail: error.reason))
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

    private func opened(_ connection: any ByteStream, server: STUNAddress, id: Int) {
        connection.onData = { [weak self] bytes in
            guard let self, self.streams[server]?.id == id else { return }
            self.onData?(server, bytes)
        }
        connection.onClose = { [weak self] error in
            self?.lost(server, id: id, reason: .transportClosed(detail: error?.reason))
        }
        let pending = streams[server]?.pending ?? []
        streams[server] = Stream(id: id, connection: connection)
        if !pending.isEmpty { connection.write(pending) }
    }

    /// A failure found while writing is reported on a later loop turn, not
    /// back into the caller's transmit loop.
    private func lostLater(_ server: STUNAddress, id: Int, reason: TURNFailure) {
        loop.schedule(after: .zero) { [weak self] in self?.lost(server, id: id, reason: reason) }
    }

    /// The connection could not be opened or it closed: its allocation is
    /// gone with it (RFC 8656 §5). The next bytes for the server (only a
    /// new allocation's: the old client says nothing after the loss) open
    /// a new connection.
    private func lost(_ server: STUNAddress, id: Int, reason: TURNFailure) {
        guard streams[server]?.id == id else { return }
        streams[server] = nil
        onClose?(server, reason)
    }
}
