import ICE
import STUN
import Testing
import TestSupport

/// Loss must not push ICE onto the relay when a direct path exists: check
/// retransmissions (RFC 8445 §14.3) carry the direct pairs through 3 % loss
/// and 50 ms one-way delay, and the relayed pair, valid first or not, is
/// never nominated over them. (An end-to-end cone × cone run once came up
/// relayed; these seeds, with TURN on both sides, pin the ICE side of it.)
@Suite(.computeThread) struct LossyPathTests {
    @Test(arguments: [NATKind.fullCone, .addressRestricted, .portRestricted])
    func aLossyDirectPathIsStillChosenOverTheRelay(_ kind: NATKind) {
        var relayed: [UInt64] = []
        for seed in UInt64(1)...60 {
            let conditions = LinkConditions(delay: .milliseconds(50), loss: 0.03)
            let harness = Harness.pair(kind, kind, seed: seed, conditions: conditions, turn: [.udp])
            harness.runUntilSettled()
            #expect(harness.a.agent.selectedPair != nil, "\(kind) seed \(seed): \(harness.a.failureReason ?? "no pair")")
            if harness.a.agent.selectedPair?.path == "relay" { relayed.append(seed) }
        }
        #expect(relayed.isEmpty, "\(kind) × \(kind) went through the relay with seeds \(relayed)")
    }
}
