import Testing
@testable import SCTP

@Suite struct HandshakeTests {
    @Test func clientAndPassiveServerConnect() {
        let a = makeAssociation(seed: 1), b = makeAssociation(seed: 2)
        let pair = SimulatedPair(a, b, profile: .clean, seed: 3)
        a.connect(now: pair.now)
        #expect(pair.run(for: .seconds(5)) { a.isEstablished && b.isEstablished })
        #expect(a.pollEvent() == .connected)
        #expect(b.pollEvent() == .connected)
    }

    @Test func simultaneousInitCollisionConverges() {
        for seed in 0..<50 as Range<UInt64> {
            let a = makeAssociation(seed: seed * 2 + 100), b = makeAssociation(seed: seed * 2 + 101)
            let pair = SimulatedPair(a, b, profile: .clean, seed: seed)
            a.connect(now: pair.now)
            b.connect(now: pair.now)
            #expect(pair.run(for: .seconds(5)) { a.isEstablished && b.isEstablished })
            #expect(a.peerTag == b.localTag && b.peerTag == a.localTag)
        }
    }

    @Test func manyHandshakesSucceedOverHostileLink() {
        var ok = 0
        for seed in 0..<100 as Range<UInt64> {
            let a = makeAssociation(seed: seed * 2 + 500), b = makeAssociation(seed: seed * 2 + 501)
            let pair = SimulatedPair(a, b, profile: .hostile, seed: seed)
            a.connect(now: pair.now)
            if seed % 2 == 0 { b.connect(now: pair.now) }
            if pair.run(for: .seconds(60), until: { a.isEstablished && b.isEstablished }) { ok += 1 }
            if a.isEstablished && b.isEstablished {
                #expect(a.peerTag == b.localTag && b.peerTag == a.localTag)
            }
        }
        #expect(ok == 100)
    }
}
