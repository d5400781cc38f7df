import HTTP1
import ICE
import Signaling
import WebSocket
import Wire

/// Decoders for what a browser, a client or the signaling server sends over
/// TCP: HTTP/1.1, WebSocket frames, JSON and the signaling messages in it.
extension FuzzTarget {
    static let webTargets: [FuzzTarget] = [
        FuzzTarget(name: "http-request", summary: "HTTP/1.1 requests as the server reads them, and the WebSocket upgrade (RFC 9112, RFC 6455 §4)", run: httpRequest),
        FuzzTarget(name: "http-response", summary: "HTTP/1.1 responses as the client reads them (RFC 9112)", run: httpResponse),
        FuzzTarget(name: "websocket", summary: "WebSocket frames and messages, server and client side (RFC 6455)", run: webSocket),
        FuzzTarget(name: "json", summary: "JSON text (RFC 8259): parse, serialize round trip", run: json),
        FuzzTarget(name: "signaling", summary: "signaling messages both ways, and candidate payloads", run: signaling),
    ]

    /// Requests from one stream, and whether it failed; the same however the
    /// stream is cut.
    private static func requests(_ pieces: [ArraySlice<UInt8>]) -> ([HTTPRequest], Bool) {
        var parser = HTTPRequestParser()
        var requests: [HTTPRequest] = []
        for piece in pieces {
            parser.feed(piece)
            do {
                while let request = try parser.next() {
                    requests.append(request)
                    _ = (request.path, request.query, request.keepAlive)
                    _ = WebSocketHandshake.respond(to: request)
                    if parser.isAwaitingUpgrade { parser.declineUpgrade() }
                    _ = parser.takeContinueRequest()
                }
            } catch {
                return (requests, true)
            }
        }
        return (requests, false)
    }

    @Sendable static func httpRequest(_ data: [UInt8]) {
        let input = StreamInput(data)
        let (cut, cutFailed) = requests(input.pieces)
        let (whole, wholeFailed) = requests([input.stream])
        FuzzCheck.expect(cut == whole && cutFailed == wholeFailed, "HTTP requests do not depend on how the stream is cut")
    }

    @Sendable static func httpResponse(_ data: [UInt8]) {
        let input = StreamInput(data)
        let method = data.first.map { $0 & 0x80 == 0 ? "GET" : "HEAD" } ?? "GET"
        var parser = HTTPResponseParser()
        let handshake = WebSocketClientHandshake(nonce: Array(repeating: 7, count: 16))
        do {
            for piece in input.pieces {
                parser.feed(piece)
                while let response = try parser.next(respondingTo: method) {
                    try? handshake?.validate(response)
                    if parser.isUpgraded { _ = parser.takeRemainingBytes() }
                }
            }
            _ = try parser.finish(respondingTo: method)
        } catch {}
    }

    @Sendable static func webSocket(_ data: [UInt8]) {
        let input = StreamInput(data)
        var decoder = WebSocketFrameDecoder()
        var server = WebSocketConnection.server(maxMessageSize: 4096)
        var client = WebSocketConnection.client(maxMessageSize: 4096, maskKeys: { 0x1234_5678 })
        var decoderFailed = false
        for piece in input.pieces {
            if !decoderFailed {
                decoder.feed(piece)
                do {
                    while let frame = try decoder.next() {
                        var again = WebSocketFrameDecoder()
                        again.feed(frame.encoded())
                        FuzzCheck.expect((try? again.next()) == frame, "a decoded WebSocket frame re-encodes to itself")
                    }
                } catch {
                    decoderFailed = true
                }
            }
            for connection in [0, 1] {
                let events = connection == 0 ? server.feed(piece) : client.feed(piece)
                for case .text(let text) in events { _ = text.utf8.count }
                _ = connection == 0 ? server.pollTransmit() : client.pollTransmit()
            }
        }
    }

    @Sendable static func json(_ data: [UInt8]) {
        guard let value = try? JSON.parse(data) else { return }
        let text = value.serializedBytes
        FuzzCheck.expect((try? JSON.parse(text)) == value, "parsed JSON re-serializes to itself")
    }

    @Sendable static func signaling(_ data: [UInt8]) {
        let text = String(fuzzBytes: data)
        if case .success(let message) = ClientMessage.decode(text: text) {
            FuzzCheck.expect(ClientMessage(json: message.json) == message, "a client message round trips")
        }
        guard let json = try? JSON.parse(text) else { return }
        if let message = ServerMessage(json: json) {
            FuzzCheck.expect(ServerMessage(json: message.json) == message, "a server message round trips")
        }
        if let payload = ICECandidatePayload(json: json), let candidate = payload.candidate, !candidate.isEmpty {
            _ = ICECandidate(sdpAttribute: candidate)
        }
    }
}
