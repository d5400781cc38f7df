import HTTP1
import Runtime
@testable import SignalingServer
import Testing

/// Limits per client (WireProtocol §1): a client is an IPv4 address or an
/// IPv6 /64; connections, room creations and wrong guesses are counted per
/// client, on a manual clock.
private func key(_ ip: String) -> String { ClientAddress.key(SocketAddress(ip: ip, port: 40000)!) }

@Test func twoAddressesOfOneIPv6Slash64AreOneClient() {
    #expect(key("2001:db8:1:2::5") == "2001:db8:1:2::/64")
    #expect(key("2001:db8:1:2:ffff:eeee:dddd:cccc") == key("2001:db8:1:2::5"))
    #expect(key("2001:db8:1:3::5") != key("2001:db8:1:2::5"))
    #expect(key("::1") == "::/64")
}

@Test func anIPv4AddressIsAClientOfItsOwnAlsoThroughADualStackSocket() {
    #expect(key("192.0.2.7") == "192.0.2.7")
    #expect(key("::ffff:192.0.2.7") == "192.0.2.7")
    #expect(key("192.0.2.8") != key("192.0.2.7"))
}

@Test func wrongGuessesFromAnywhereInOneSlash64ShareOneLimit() throws {
    let f = try Fixture()
    f.create("111111")
    for i in 0..<10 { #expect(f.accept("000000", address: key("2001:db8:1:2::\(i + 1)")).status == 404) }
    #expect(f.accept("111111", address: key("2001:db8:1:2:abcd::99")).status == 429)
    #expect(f.accept("111111", address: key("2001:db8:1:3::1")).status == 200, "the next /64 is another client")
}

@Test func aClientHoldsAtMostItsConnectionsAndAClosedOneFreesASlot() {
    var settings = ClientLimits.Settings()
    settings.connectionsPerClient = 3
    var limits = ClientLimits(settings)
    for _ in 0..<3 { let admitted = limits.admitConnection("192.0.2.1"); #expect(admitted) }
    let refused = !limits.admitConnection("192.0.2.1")
    #expect(refused)
    let other = limits.admitConnection("192.0.2.2")
    #expect(other, "another client is not affected")
    limits.releaseConnection("192.0.2.1")
    let again = limits.admitConnection("192.0.2.1")
    #expect(again)
    #expect(limits.openConnections("192.0.2.1") == 3)
    for _ in 0..<5 { limits.releaseConnection("192.0.2.2") }
    #expect(limits.openConnections("192.0.2.2") == 0)
}

@Test func roomCreationsPerClientAreLimitedPerHourOnASlidingWindow() {
    var settings = ClientLimits.Settings()
    settings.roomsPerClientPerHour = 3
    var limits = ClientLimits(settings)
    var now = UnixTime(seconds: 1_790_000_000)
    do { let wait = limits.admitCreate("192.0.2.1", now: now); #expect(wait == nil) }
    now = now.adding(seconds: 600)
    do { let wait = limits.admitCreate("192.0.2.1", now: now); #expect(wait == nil) }
    do { let wait = limits.admitCreate("192.0.2.1", now: now); #expect(wait == nil) }
    do { let wait = limits.admitCreate("192.0.2.1", now: now); #expect(wait == 3000, "free an hour after the first") }
    do { let wait = limits.admitCreate("2001:db8::/64", now: now); #expect(wait == nil) }
    now = now.adding(seconds: 3000)
    do { let wait = limits.admitCreate("192.0.2.1", now: now); #expect(wait == nil) }
    do { let wait = limits.admitCreate("192.0.2.1", now: now); #expect(wait == 600) }
    now = now.adding(seconds: 3600)
    limits.sweep(now: now)
    #expect(limits.trackedCreators == 0)
}

@Test func theDefaultLimitsAreOnesAHouseholdNeverMeets() {
    let settings = ClientLimits.Settings()
    #expect(settings.connectionsPerClient == 100)
    #expect(settings.roomsPerClientPerHour == 60)
    #expect(SlidingWindowLimiter().limit == 10)
}

@Test func aFullClientTableRefusesNewClientsUntilTheSweepFreesIt() {
    var limiter = SlidingWindowLimiter(limit: 2, windowSeconds: 60, maxClients: 3)
    var now = UnixTime(seconds: 1_790_000_000)
    for i in 0..<3 { limiter.record(client: "10.0.0.\(i)", now: now) }
    #expect(limiter.retryAfter(client: "10.0.0.9", now: now) == 60)
    limiter.record(client: "10.0.0.9", now: now)
    #expect(limiter.trackedClientCount == 3, "memory stays bounded")
    #expect(limiter.retryAfter(client: "10.0.0.1", now: now) == nil, "known clients keep their own count")
    now = now.adding(seconds: 61)
    limiter.record(client: "10.0.0.9", now: now)
    #expect(limiter.trackedClientCount == 1, "recording swept the idle clients first")
    #expect(limiter.retryAfter(client: "10.0.0.5", now: now) == nil)
}

@Test func aNearlyFullCodeSpaceRefusesCreationWithACodeNotCollisions() throws {
    let store = InMemoryRoomStore()
    let registry = try RoomRegistry(store: store, random: SystemRandomNumberGenerator(), maxRooms: 2)
    let router = RESTRouter(registry: registry, random: SystemRandomNumberGenerator())
    var now = UnixTime(seconds: 1_790_000_000)
    func create(_ code: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        let body = #"{"joinid":"\#(code)","expiresInSeconds":60,"client1":"alice-device-1"}"#
        guard case .respond(let response) = router.handle(
            HTTPRequest(method: "POST", target: "/api/rooms", headers: headers, body: Array(body.utf8)), clientAddress: "192.0.2.1", now: now)
        else { return HTTPResponse(status: 599) }
        return response
    }
    #expect(create("111111").status == 201)
    #expect(create("222222").status == 201)
    #expect(create("111111").status == 409, "a code in use is still that")
    let full = create("333333")
    #expect(full.status == 503)
    #expect(full.errorCode == "code_space_full")
    #expect(full.headers["Retry-After"] == "60")
    now = now.adding(seconds: 61)
    try registry.sweep(now: now)
    #expect(create("333333").status == 201)
}
