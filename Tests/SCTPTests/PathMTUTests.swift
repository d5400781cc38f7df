import Testing
@testable import SCTP

/// Path MTU Discovery (RFC 8899) on a manual clock: padded HEARTBEAT probes
/// find the largest packet the simulated link carries, data then uses it,
/// and a black hole sends the association back to the base size.
@Suite struct PathMTUTests {
    static func config() -> SCTPConfig {
        var c = SCTPConfig()
        c.maxProbePacketSize = 16_384
        return c
    }

    /// A link that drops every packet larger than `limit` (when set).
    static func pair(limit: Int?) -> (SimulatedPair<SCTPAssociation>, Box) {
        let box = Box(limit: limit)
        let a = makeAssociation(seed: 31, config: config()), b = makeAssociation(seed: 32, config: config())
        let pair = SimulatedPair(a, b, profile: LinkProfile(delay: .milliseconds(20)), seed: 3)
        pair.filter = { _, bytes in box.limit.map { bytes.count <= $0 } ?? true ? bytes : nil }
        a.connect(now: pair.now)
        b.connect(now: pair.now)
        _ = pair.run(for: .seconds(60)) { a.isEstablished && b.isEstablished }
        _ = a.pollEvent()
        _ = b.pollEvent()
        return (pair, box)
    }

    final class Box {
        var limit: Int?
        init(limit: Int?) { self.limit = limit }
    }

    /// Sends `count` messages of `size` from a to b; true when all arrived intact.
    static func transfer(_ pair: SimulatedPair<SCTPAssociation>, count: Int, size: Int) -> Bool {
        for i in 0..<count { try? pair.a.send(stream: 1, ppid: 53, bytes: payload(index: i, size: size), ordered: true) }
        var got = 0
        var intact = true
        _ = pair.run(for: .seconds(600)) {
            while let e = pair.b.pollEvent() {
                if case .message(_, _, let bytes) = e {
                    intact = intact && bytes == payload(index: got, size: size)
                    got += 1
                }
            }
            return got == count
        }
        return got == count && intact
    }

    @Test(arguments: [(nil, 16_384), (9_000, 8_800), (1_500, 1_400), (1_300, 1_200)])
    func searchFindsTheLargestSizeTheLinkCarries(limit: Int?, expected: Int) {
        let (pair, _) = Self.pair(limit: limit)
        _ = pair.run(for: .seconds(30)) { pair.a.pathMTU.phase == .complete && pair.b.pathMTU.phase == .complete }
        #expect(pair.a.packetSize == expected)
        #expect(pair.b.packetSize == expected)
        #expect(Self.transfer(pair, count: 200, size: 20_000))
        #expect(pair.a.statistics.t3Expirations == 0, "probes are not data: losing them costs no retransmission")
    }

    @Test func aBlackHoleFallsBackToTheBaseSize() {
        let (pair, box) = Self.pair(limit: nil)
        _ = pair.run(for: .seconds(30)) { pair.a.pathMTU.phase == .complete }
        #expect(pair.a.packetSize == 16_384)
        #expect(Self.transfer(pair, count: 50, size: 30_000))
        box.limit = 1_300   // the path changes under the association, data in flight
        #expect(Self.transfer(pair, count: 100, size: 30_000), "fragments are cut for the base size: all of them still fit")
        #expect(pair.a.packetSize == 1_200)
    }

    @Test func withoutAMaximumNothingIsProbed() {
        let pair = connectedPair(profile: .clean, seed: 4)
        _ = Self.transfer(pair, count: 10, size: 5000)
        #expect(pair.a.statistics.pathMTUProbes == 0)
        #expect(pair.a.packetSize == 1_200)
    }
}
