import HTTP1
import Redis
import Runtime
import Signaling
import Wire

/// The REST API (WireProtocol §1) over Redis. Room routes, `/healthz` and
/// member-scoped `/api/ice-servers` are answered here, asynchronously: each
/// is held like a long poll (``RouteResult/longPoll(_:deadline:)``) until
/// its script answers. Everything else goes to the embedded ``RESTRouter``.
///
/// While Redis is unreachable, room routes answer `503 {"error":"unavailable"}`
/// with `Retry-After` and `/healthz` answers 503: nothing is answered from
/// memory. A request whose script was sent when the connection dropped is
/// answered 503 too (it may or may not have run; the client retries): create
/// and accept are idempotent per client, so the retry of one that did run
/// gets the answer the first would have had, not a 409.
final class ClusterRouter: RequestRouting {
    /// A held request unanswered this long is answered 503 (the Redis
    /// connection's own deadline normally answers first).
    static let requestDeadlineSeconds: Int64 = 10
    static let retryAfterSeconds = 1
    /// Wake-ups remembered this long, for a poll parked just after its wake-up overtook it.
    static let wakeMemory = Duration.seconds(10)

    private enum Held {
        case request
        case waiting(JoinCode, DeviceID)
    }

    let rest: RESTRouter
    let link: ClusterLink
    let limit: Int
    let windowMilliseconds: Int64
    /// Live rooms across the cluster above which `create` is refused (`--max-rooms`).
    let maxRooms: Int
    var random: any RandomNumberGenerator
    private var nextToken: UInt64 = 1
    private var held: [LongPollToken: Held] = [:]
    private var waitersByCode: [JoinCode: [LongPollToken]] = [:]
    private var recentWakes: [JoinCode: Instant] = [:]
    private var completed: [(LongPollToken, HTTPResponse)] = []
    /// Inside `handle`: an answer found at once is returned, not announced.
    private var handling = false
    /// Called when held requests have answers to collect.
    var onCompletion: (() -> Void)?

    init(rest: RESTRouter, link: ClusterLink, limit: Int, windowSeconds: Int64, maxRooms: Int,
         random: any RandomNumberGenerator) {
        self.rest = rest
        self.maxRooms = max(1, maxRooms)
        self.link = link
        self.limit = max(1, limit)
        self.windowMilliseconds = max(1, windowSeconds) * 1000
        self.random = random
    }

    /// Long polls parked on this instance, waiting for a wake-up (shown by `/healthz`).
    var parkedCount: Int { waitersByCode.values.reduce(0) { $0 + $1.count } }

    static var unavailable: HTTPResponse {
        RESTError(503, "unavailable", headers: HTTPHeaders([("Retry-After", String(retryAfterSeconds))])).response
    }

    func handle(_ request: HTTPRequest, clientAddress: String, now: UnixTime) -> RouteResult {
        var path = Substring(request.path)
        if path.count > 1, path.last == "/" { path = path.dropLast() }
        let ours: Bool
        switch (path, request.method) {
        case ("/api/rooms", "POST"), ("/api/rooms", "GET"), ("/api/rooms", "DELETE"), ("/api/rooms/accept", "POST"),
             ("/api/rooms/check", "POST"), ("/api/user/purge", "POST"), ("/healthz", "GET"):
            ours = true
        case ("/api/ice-servers", "GET"):
            ours = Self.namesRoom(request.query)
        default:
            ours = false
        }
        guard ours else { return rest.handle(request, clientAddress: clientAddress, now: now) }
        guard link.isHealthy else {
            if path == "/healthz" {
                return .respond(.json(503, ["ok": false, "error": "redis_unavailable"]).with("Retry-After", String(Self.retryAfterSeconds)))
            }
            return .respond(Self.unavailable)
        }
        let token = LongPollToken(rawValue: nextToken)
        nextToken &+= 1
        held[token] = .request
        handling = true
        defer { handling = false }
        var deadline = now.adding(seconds: Self.requestDeadlineSeconds)
        switch (path, request.method) {
        case ("/healthz", _): ping(token)
        case ("/api/rooms", "POST"): create(request, token, now)
        case ("/api/rooms", "GET"): lookup(request, token, now)
        case ("/api/rooms", _): delete(request, token, now)
        case ("/api/rooms/accept", _): accept(request, clientAddress, token, now)
        case ("/api/rooms/check", _):
            let wait = RESTRouter.waitSeconds(request)
            if let wait { deadline = now.adding(seconds: wait) }
            check(request, wait: wait != nil, token, now)
        case ("/api/user/purge", _): purge(request, token, now)
        default: iceServers(request, token, now)
        }
        if let response = takeCompleted(token) { return .respond(response) }
        return .longPoll(token, deadline: deadline)
    }

    func pollCompletedLongPolls() -> [(LongPollToken, HTTPResponse)] {
        defer { completed.removeAll() }
        return completed
    }

    func longPollDeadlinePassed(_ token: LongPollToken, now: UnixTime) -> HTTPResponse? {
        switch held[token] {
        case nil:
            return nil
        case .request:
            held[token] = nil
            return Self.unavailable
        case .waiting(let code, let client1):
            // The answer is the room's state now, which only Redis knows.
            unpark(token)
            held[token] = .request
            runCheck(code, client1, wait: false, token, now)
            return nil
        }
    }

    func cancelLongPoll(_ token: LongPollToken) {
        unpark(token)
        held[token] = nil
    }

    /// A room changed somewhere in the cluster: its parked polls ask again.
    func wake(_ code: JoinCode) {
        let now = link.loop.now
        recentWakes = recentWakes.filter { now - $0.value < Self.wakeMemory }
        recentWakes[code] = now
        for token in waitersByCode.removeValue(forKey: code) ?? [] {
            guard case .waiting(let code, let client1) = held[token] else { continue }
            runCheck(code, client1, wait: true, token, UnixTime(milliseconds: wallClockMilliseconds()))
        }
    }

    // MARK: - Answers

    func finish(_ token: LongPollToken, _ response: HTTPResponse) {
        guard held[token] != nil else { return }
        unpark(token)
        held[token] = nil
        completed.append((token, response))
        if !handling { onCompletion?() }
    }

    func finishError(_ token: LongPollToken, _ error: RESTError) { finish(token, error.response) }

    func finishHealth(_ token: LongPollToken, _ response: HTTPResponse) { finish(token, response) }

    /// Holds a check on a pending room until a wake-up for its code. A
    /// wake-up can overtake the answer that parks it (they come over
    /// different connections), so a recent one makes it ask again at once.
    func park(_ token: LongPollToken, _ code: JoinCode, _ client1: DeviceID, _ now: UnixTime) {
        guard held[token] != nil else { return }
        unpark(token)
        held[token] = .waiting(code, client1)
        if let at = recentWakes[code], link.loop.now - at < Self.wakeMemory {
            recentWakes[code] = nil
            runCheck(code, client1, wait: true, token, UnixTime(milliseconds: wallClockMilliseconds()))
            return
        }
        waitersByCode[code, default: []].append(token)
    }

    /// A Redis failure: 503 if Redis was unreachable, 500 if a script failed.
    func failed(_ token: LongPollToken, _ error: RedisError) {
        if case .server(let message) = error {
            link.log.write("error", ["what": "redis", "reason": message])
            finishError(token, .internalError)
        } else {
            finish(token, Self.unavailable)
        }
    }

    private func takeCompleted(_ token: LongPollToken) -> HTTPResponse? {
        guard let index = completed.firstIndex(where: { $0.0 == token }) else { return nil }
        return completed.remove(at: index).1
    }

    private func unpark(_ token: LongPollToken) {
        guard case .waiting(let code, _)? = held[token] else { return }
        waitersByCode[code]?.removeAll { $0 == token }
        if waitersByCode[code]?.isEmpty == true { waitersByCode[code] = nil }
    }

    /// Runs a script for a held request; `body` turns its reply into the answer.
    func run(_ script: RedisScript, _ token: LongPollToken, _ now: UnixTime, _ arguments: [String],
                     _ body: @escaping (RESPValue) -> HTTPResponse?) {
        link.run(script, now: now, arguments) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error): self.failed(token, error)
            case .success(let value):
                if let response = body(value) { self.finish(token, response) }
            }
        }
    }

    private static func namesRoom(_ query: [String: String]) -> Bool {
        query["roomid"].map { !$0.isEmpty } == true && query["deviceId"].map { !$0.isEmpty } == true
    }
}

extension HTTPResponse {
    func with(_ name: String, _ value: String) -> HTTPResponse {
        var copy = self
        copy.headers.set(name, value)
        return copy
    }
}
