import Testing
@testable import SCTP

/// After an outage the lower layer reports a working path again: data held
/// back by backed-off timers goes out at once instead of up to `rtoMax` later.
@Suite struct PathRestoredTests {
    @Test func outstandingDataIsRetransmittedAtOnceWhenThePathComesBack() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(5)), seed: 41)
        let a = pair.a, b = pair.b
        pair.filter = { _, _ in nil }   // the path is cut both ways
        for i in 0..<5 { try? a.send(stream: 0, ppid: 51, bytes: Array("during outage \(i)".utf8)) }
        _ = pair.run(for: .seconds(40)) { false }
        #expect(a.statistics.t3Expirations >= 4)
        #expect(a.currentRTO >= .seconds(16))
        #expect(!a.isClosed)

        pair.filter = nil
        a.pathRestored(now: pair.now)
        #expect(a.currentRTO < .seconds(2))
        var received: [String] = []
        let start = pair.now
        let done = pair.run(for: .seconds(5)) {
            while let e = b.pollEvent() {
                if case .message(_, _, let bytes) = e { received.append(String(decoding: bytes, as: UTF8.self)) }
            }
            return received.count == 5 && a.isFullyAcknowledged
        }
        #expect(done)
        #expect(received == (0..<5).map { "during outage \($0)" })
        #expect(pair.now - start < .milliseconds(500))
    }

    @Test func pathRestoredWithNothingOutstandingOnlyResetsTheBackOff() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(5)), seed: 42)
        let a = pair.a
        let before = a.pollTimeout()
        a.pathRestored(now: pair.now)
        #expect(a.pollTimeout() == before)
        #expect(a.pollTransmit(now: pair.now) == nil)
    }
}
