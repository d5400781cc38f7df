import HTTP1
import Signaling
import Wire

/// What to do with a request: answer now, or hold it as a long poll until
/// the registry wakes it (`pollCompletedLongPolls`) or its deadline passes
/// (`longPollDeadlinePassed`).
public enum RouteResult: Equatable, Sendable {
    case respond(HTTPResponse)
    case longPoll(LongPollToken, deadline: UnixTime)
}

/// The REST API of WireProtocol §1 as a sans-IO function from `HTTPRequest`
/// to `HTTPResponse`.
///
/// Bodies over `maxBodyBytes` are the HTTP layer's to refuse (with
/// `HTTPResponse.bodyTooLarge`); everything else, including which path and
/// method exist, is decided here. Time and randomness come in from outside.
public final class RESTRouter {
    public static let maxBodyBytes = 64 * 1024
    /// `?wait=S` above this is treated as this.
    public static let maxLongPollSeconds: Int64 = 30

    public let registry: RoomRegistry
    public var iceServers: ICEServerConfiguration
    var random: any RandomNumberGenerator

    public init(registry: RoomRegistry, iceServers: ICEServerConfiguration = ICEServerConfiguration(), random: any RandomNumberGenerator) {
        self.registry = registry
        self.iceServers = iceServers
        self.random = random
    }

    private enum Route {
        case rooms, accept, check, purge, iceServers, health

        init?(path: String) {
            // One trailing slash is tolerated, as Express does by default.
            var path = Substring(path)
            if path.count > 1, path.last == "/" { path = path.dropLast() }
            switch path {
            case "/api/rooms": self = .rooms
            case "/api/rooms/accept": self = .accept
            case "/api/rooms/check": self = .check
            case "/api/user/purge": self = .purge
            case "/api/ice-servers": self = .iceServers
            case "/healthz": self = .health
            default: return nil
            }
        }

        var allowedMethods: [String] {
            switch self {
            case .rooms: return ["GET", "POST", "DELETE"]
            case .accept, .check, .purge: return ["POST"]
            case .iceServers, .health: return ["GET"]
            }
        }
    }

    public func handle(_ request: HTTPRequest, clientAddress: String, now: UnixTime) -> RouteResult {
        guard let route = Route(path: request.path) else { return .respond(RESTError.notFound.response) }
        guard route.allowedMethods.contains(request.method) else {
            let allow = HTTPHeaders([("Allow", route.allowedMethods.joined(separator: ", "))])
            return .respond(RESTError(405, "method_not_allowed", headers: allow).response)
        }
        do {
            switch (route, request.method) {
            case (.rooms, "POST"): return .respond(try create(request, now: now))
            case (.rooms, "GET"): return .respond(try lookup(request, now: now))
            case (.rooms, _): return .respond(try delete(request, now: now))
            case (.accept, _): return .respond(try accept(request, address: clientAddress, now: now))
            case (.check, _): return try check(request, now: now)
            case (.purge, _): return .respond(try purge(request, now: now))
            case (.iceServers, _): return .respond(try iceServerList(request, now: now))
            case (.health, _): return .respond(.json(200, ["ok": true]))
            }
        } catch {
            return .respond(error.response)
        }
    }

    // MARK: - Long polls

    /// Long polls answered since the last call (their room was accepted,
    /// deleted, purged or swept). Call after every `handle` and `sweep`.
    public func pollCompletedLongPolls() -> [(LongPollToken, HTTPResponse)] {
        registry.pollWakeups().map { ($0.0, RESTRouter.checkResponse($0.1)) }
    }

    /// The answer for a long poll whose deadline passed: `204` if the room is
    /// still pending (or whatever `check` says now); nil if already answered.
    public func longPollDeadlinePassed(_ token: LongPollToken, now: UnixTime) -> HTTPResponse? {
        registry.finishWaiter(token, now: now).map(RESTRouter.checkResponse)
    }

    /// Forgets a long poll whose connection closed.
    public func cancelLongPoll(_ token: LongPollToken) { registry.cancelWaiter(token) }

    static func checkResponse(_ outcome: RoomRegistry.CheckOutcome) -> HTTPResponse {
        switch outcome {
        case .pending, .waiting: return .noContent
        case .accepted(let id): return .json(200, ["roomid": .string(id.rawValue)])
        case .notFound: return RESTError.notFoundOrExpired.response
        }
    }

    /// `?wait=S` in whole seconds, capped at 30; nil when absent, malformed or ≤ 0.
    static func waitSeconds(_ request: HTTPRequest) -> Int64? {
        guard let text = request.query["wait"], text.utf8.count <= 12, let seconds = Int64(text), seconds > 0 else { return nil }
        return min(seconds, maxLongPollSeconds)
    }
}
