import ICE
import STUN
import Testing
import TestSupport

/// Every combination of NAT behaviours: a direct path exists unless both
/// ends filter by port and at least one maps per destination (or UDP is
/// blocked); those are the TURN relay cases.
struct NATMatrixTests {
    static let connectable: [(NATKind, NATKind)] = [
        (.none, .none), (.none, .fullCone), (.none, .portRestricted), (.none, .symmetric),
        (.fullCone, .fullCone), (.fullCone, .symmetric), (.symmetric, .fullCone),
        (.addressRestricted, .addressRestricted), (.addressRestricted, .symmetric), (.symmetric, .addressRestricted),
        (.portRestricted, .portRestricted), (.portRestricted, .fullCone), (.addressRestricted, .portRestricted),
    ]

    static let unconnectable: [(NATKind, NATKind)] = [
        (.symmetric, .symmetric), (.symmetric, .portRestricted), (.portRestricted, .symmetric),
        (.udpBlocked, .none), (.none, .udpBlocked), (.udpBlocked, .fullCone),
    ]

    @Test(arguments: connectable.indices)
    func peersConnectWhenADirectPathExists(_ index: Int) {
        let (a, b) = Self.connectable[index]
        let harness = Harness.pair(a, b, seed: UInt64(index) + 1)
        harness.runUntilSettled()
        #expect(!harness.busyLoop)
        #expect(harness.a.agent.state.isConnected, "\(a)×\(b): A is \(harness.a.agent.state) \(harness.a.failureReason ?? "")")
        #expect(harness.b.agent.state.isConnected, "\(a)×\(b): B is \(harness.b.agent.state) \(harness.b.failureReason ?? "")")
        let pa = harness.a.agent.selectedPair, pb = harness.b.agent.selectedPair
        #expect(pa?.localBase == pb?.remoteAddress || pa?.remoteAddress != nil)
        #expect(pa?.nominated == true && pb?.nominated == true)
    }

    @Test(arguments: unconnectable.indices)
    func peersFailWithARelayReasonWhenNoDirectPathExists(_ index: Int) {
        let (a, b) = Self.unconnectable[index]
        let harness = Harness.pair(a, b, seed: UInt64(index) + 100)
        harness.runUntilBothDone()
        #expect(!harness.busyLoop)
        for peer in harness.peers {
            switch peer.failure {
            case .allPairsFailed, .noAnswer, .udpBlocked: break
            default: Issue.record("\(a)×\(b): \(peer.name) is \(peer.agent.state): \(peer.failureReason ?? "")")
            }
            #expect(peer.failureReason?.contains("TURN relay") == true)
        }
        // Both ends signalled end-of-candidates, so the verdict comes well
        // before the 30 s overall timeout.
        #expect(harness.network.now < .seconds(20))
    }
}
