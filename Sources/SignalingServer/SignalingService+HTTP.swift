import HTTP1
import Runtime

extension SignalingService {
    func route(_ request: HTTPRequest, on connection: ServerConnection, started: Instant) {
        if let response = config.cors?.preflight(request) ?? WebClient.response(to: request, secure: tls != nil) {
            respond(response, to: request, on: connection, started: started)
            return
        }
        let address = ClientAddress.of(request, peer: connection.peer, trustedProxies: config.trustedProxies)
        if request.method == "POST", request.path == "/api/rooms" || request.path == "/api/rooms/",
           let wait = limits.admitCreate(address, now: now) {
            respond(RESTRouter.rateLimited(wait).response, to: request, on: connection, started: started)
            return
        }
        switch router.handle(request, clientAddress: address, now: now) {
        case .respond(let response):
            respond(response, to: request, on: connection, started: started)
        case .longPoll(let token, let deadline):
            let wait = Duration.milliseconds(max(0, deadline.milliseconds - now.milliseconds))
            let timer = loop.schedule(after: wait) { [weak self] in
                guard let self, let response = self.router.longPollDeadlinePassed(token, now: self.now) else { return }
                self.finishLongPoll(token, response)
            }
            connection.mode = .longPoll(token, timer, request, started: started)
            longPolls[token] = connection.id
        }
        for (token, response) in router.pollCompletedLongPolls() { finishLongPoll(token, response) }
    }

    /// A trusted proxy's connection counts against the forwarded client
    /// from its first request on; over the client's limit, that request is
    /// answered `429 too_many_connections` and the connection closed.
    /// Returns false when it was refused.
    func admitProxied(_ request: HTTPRequest, on connection: ServerConnection, started: Instant) -> Bool {
        guard connection.limitKey == nil else { return true }
        let client = ClientAddress.of(request, peer: connection.peer, trustedProxies: config.trustedProxies)
        guard limits.admitConnection(client) else {
            var response = RESTError(429, "too_many_connections", headers: HTTPHeaders([("Retry-After", "10")])).response
            response.headers.set("Connection", "close")
            respond(response, to: request, on: connection, started: started)
            return false
        }
        connection.limitKey = client
        return true
    }

    func finishLongPoll(_ token: LongPollToken, _ response: HTTPResponse) {
        guard let id = longPolls.removeValue(forKey: token), let connection = connections[id],
              case .longPoll(_, let timer, let request, let started) = connection.mode else { return }
        timer.cancel()
        connection.mode = .http
        respond(response, to: request, on: connection, started: started)
        processRequests(on: connection)
    }

    func respond(_ response: HTTPResponse, to request: HTTPRequest, on connection: ServerConnection, started: Instant) {
        var response = response
        config.cors?.decorate(&response, for: request)
        let keepAlive = request.keepAlive && !stopping && response.headers["Connection"] != "close"
        if !keepAlive { response.headers.set("Connection", "close") }
        connection.write(response)
        if response.status == 429 { counters.rateLimitRefusals += 1 }
        if response.status == 200, request.method == "POST", request.path.hasPrefix("/api/rooms/accept") { counters.pairings += 1 }
        log.write("http", [
            "method": request.method, "path": WebClient.loggedPath(request.path), "status": "\(response.status)",
            "ms": Self.milliseconds(loop.now - started), "client": connection.client,
        ])
        if !keepAlive {
            connection.mode = .draining
            connection.stream.close()
        }
    }

    /// A request the parser refused: answer with the right status (413 as
    /// the API's JSON error), then drain and close.
    func refuse(_ connection: ServerConnection, _ error: HTTPParseError) {
        var response: HTTPResponse
        if case .bodyTooLarge = error {
            response = .bodyTooLarge
        } else {
            response = .json(error.status, ["error": .string(Self.errorCode(error.status))])
        }
        response.headers.set("Connection", "close")
        connection.write(response)
        connection.mode = .draining
        log.write("http", ["status": "\(response.status)", "error": "\(error)", "client": connection.client])
        // Keep reading (and dropping) so the answer is not lost to a reset;
        // the housekeeping timer closes the connection if the client lingers.
        connection.lastActivity = loop.now
        loop.schedule(after: .seconds(2)) { [weak connection] in connection?.stream.close() }
    }

    static func errorCode(_ status: Int) -> String {
        switch status {
        case 413: return "body_too_large"
        case 431: return "headers_too_large"
        case 501: return "not_implemented"
        case 505: return "http_version_not_supported"
        default: return "bad_request"
        }
    }

    static func milliseconds(_ d: Duration) -> String {
        let (s, atto) = d.components
        let micros = s * 1_000_000 + atto / 1_000_000_000_000
        return "\(micros / 1000).\(String(repeating: "0", count: 3 - String(micros % 1000).count))\(micros % 1000)"
    }
}
