import TestSupport
import HTTP1
import Signaling
@testable import SignalingServer
import Wire

/// A registry, router and hub over an in-memory store, driven by a manual clock.
final class Fixture {
    var now = UnixTime(seconds: 1_790_000_000)
    let store: InMemoryRoomStore
    let registry: RoomRegistry
    let router: RESTRouter
    lazy var hub = SignalingHub(
        random: SeededRandom(seed: 99), roomIsJoinable: { [registry] id, now in registry.isJoinable(id, now: now) },
        roster: { [registry] id, now in registry.roster(id: id, now: now) },
        endGroup: { [registry] id, now in try? registry.endGroup(id: id, now: now) })

    static let alice = "alice-device-1"
    static let bob = "bob-device-2"

    init(store: InMemoryRoomStore = InMemoryRoomStore(), iceServers: ICEServerConfiguration = ICEServerConfiguration(), seed: UInt64 = 7) throws {
        self.store = store
        registry = try RoomRegistry(store: store, random: SeededRandom(seed: seed))
        router = RESTRouter(registry: registry, iceServers: iceServers, random: SeededRandom(seed: seed + 1))
    }

    func advance(seconds: Int64) { now = now.adding(seconds: seconds) }

    func route(_ method: String, _ target: String, _ body: String? = nil, host: String? = "localhost:8080", address: String = "192.0.2.1") -> RouteResult {
        var headers = HTTPHeaders()
        if let host { headers.add("Host", host) }
        if body != nil { headers.add("Content-Type", "application/json") }
        let request = HTTPRequest(method: method, target: target, headers: headers, body: Array((body ?? "").utf8))
        return router.handle(request, clientAddress: address, now: now)
    }

    /// The immediate response; a long poll here is a test failure (answered as 599).
    func send(_ method: String, _ target: String, _ body: String? = nil, host: String? = "localhost:8080", address: String = "192.0.2.1") -> HTTPResponse {
        guard case .respond(let response) = route(method, target, body, host: host, address: address) else {
            return HTTPResponse(status: 599)
        }
        return response
    }

    @discardableResult
    func create(_ code: String = "123456", client1: String = alice, expires: Int = 600) -> HTTPResponse {
        send("POST", "/api/rooms", #"{"joinid":"\#(code)","expiresInSeconds":\#(expires),"client1":"\#(client1)"}"#)
    }

    /// Creates a group room of `max` members (the default when nil).
    @discardableResult
    func createGroup(_ code: String = "123456", client1: String = alice, max: Int? = nil) -> HTTPResponse {
        let size = max.map { #","max":\#($0)"# } ?? ""
        return send("POST", "/api/rooms", #"{"joinid":"\#(code)","expiresInSeconds":600,"client1":"\#(client1)","group":true\#(size)}"#)
    }

    func accept(_ code: String = "123456", client2: String = bob, address: String = "192.0.2.1") -> HTTPResponse {
        send("POST", "/api/rooms/accept", #"{"joinid":"\#(code)","client2":"\#(client2)"}"#, address: address)
    }

    func check(_ code: String = "123456", client1: String = alice, query: String = "") -> RouteResult {
        route("POST", "/api/rooms/check" + query, #"{"joinid":"\#(code)","client1":"\#(client1)"}"#)
    }

    /// Creates and accepts a room; returns its id.
    func acceptedRoom(_ code: String = "123456") -> String {
        create(code)
        return accept(code).json?["roomid"]?.stringValue ?? ""
    }
}

extension HTTPResponse {
    var json: JSON? { try? JSON.parse(body) }
    var errorCode: String? { json?["error"]?.stringValue }
    var contentType: String? { headers["Content-Type"] }
}
