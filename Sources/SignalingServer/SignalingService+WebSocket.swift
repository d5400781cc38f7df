import HTTP1
import Runtime
import Signaling
import WebSocket

extension SignalingService {
    func upgrade(_ connection: ServerConnection, _ request: HTTPRequest) {
        switch WebSocketHandshake.respond(to: request) {
        case .rejected(let response, _):
            connection.parser.declineUpgrade()
            respond(response, to: request, on: connection, started: loop.now)
            connection.mode = .draining
            connection.stream.close()
        case .accepted(let response):
            connection.write(response)
            connection.socket = .server(maxMessageSize: SignalingHub.maxTextBytes, oversizedMessagePolicy: .reportAndDiscard)
            connection.mode = .webSocket
            log.write("ws_open", ["conn": "\(connection.id.rawValue)", "client": connection.client])
            deliver(hub.connect(connection.id))
            let rest = connection.parser.takeRemainingBytes()
            connection.parser = HTTPRequestParser(maxHeadSize: 0, maxBodySize: 0)   // no longer used
            if !rest.isEmpty { receiveFrames(rest, on: connection) }
        }
    }

    func receiveFrames(_ bytes: [UInt8], on connection: ServerConnection) {
        guard var ws = connection.socket else { return }
        let events = ws.feed(bytes)
        connection.socket = ws
        connection.flush()   // pongs and close echoes the codec queued
        connection.pingOutstanding = false
        for event in events {
            switch event {
            case .text(let text):
                deliver(hub.receive(connection.id, text: text, now: now))
                for id in hub.pollProbes() { probe(id) }
            case .binary:
                connection.send(text: ServerMessage.error(.invalidMessage).json.serialized)
            case .messageTooBig:
                connection.send(text: ServerMessage.error(.messageTooLarge).json.serialized)
            case .close, .failed:
                connection.stream.close()
                return
            case .ping, .pong:
                break
            }
        }
        closeIfBackedUp(connection)
    }

    func deliver(_ outbound: [Outbound]) {
        for message in outbound {
            guard let connection = connections[message.connection] else { continue }
            connection.send(text: message.text)
            closeIfBackedUp(connection)
        }
    }

    /// A seat holder must answer a ping within `probeTimeout` or it is
    /// dropped like a socket that missed the heartbeat, so a member back on
    /// a new socket gets its seat in seconds, not `deadAfter`.
    func probe(_ id: ConnectionID) {
        guard let connection = connections[id], case .webSocket = connection.mode else { return }
        let sentAt = loop.now
        connection.ping()
        loop.schedule(after: Self.probeTimeout) { [weak connection] in
            guard let connection, connection.lastActivity <= sentAt else { return }
            connection.stream.abort()
        }
    }

    /// Every 5 s: ping quiet WebSockets, drop dead ones (their seat frees and
    /// the peer hears `peer_disconnected`), close idle or stuck HTTP
    /// connections, and sweep expired rooms.
    func tidy() {
        let nowInstant = loop.now
        for connection in Array(connections.values) {
            if closeIfBackedUpTooLong(connection, now: nowInstant) { continue }
            let quiet = nowInstant - connection.lastActivity
            switch connection.mode {
            case .webSocket:
                if quiet >= Self.deadAfter {
                    connection.stream.abort()
                } else if quiet >= Self.pingAfter && !connection.pingOutstanding {
                    connection.ping()
                }
            case .http, .draining:
                if quiet >= Self.httpIdle || (connection.requestStarted.map { nowInstant - $0 >= .seconds(30) } ?? false) {
                    connection.stream.abort()
                }
            case .longPoll:
                break
            }
        }
        limits.sweep(now: now)
        do {
            let swept = try registry?.sweep(now: now) ?? 0
            if swept > 0 { log.write("sweep", ["expired": "\(swept)"]) }
        } catch {
            log.write("error", ["what": "sweep", "reason": "\(error)"])
        }
        for (token, response) in router.pollCompletedLongPolls() { finishLongPoll(token, response) }
        housekeeping = loop.schedule(after: .seconds(5)) { [weak self] in self?.tidy() }
    }
}
