import TestSupport
import STUN
import Testing
@testable import TURN

/// Over UDP the client's retransmissions carry every transaction through
/// loss, and a duplicated or late answer changes nothing: each event comes
/// once (the path is `.hostile`: 10 % loss, 5 % duplication, 10 %
/// reordering, 50 ms ± 20 ms each way). Over TCP (a stream: delayed, never lost) each request goes once.
@Test(arguments: [TURNTransport.udp, .tcp])
func everyTransactionCompletesOnceOverALossyPath(transport: TURNTransport) {
    let peer = STUNAddress(ipv4: 10, 0, 0, 5, port: 6000)
    for seed in UInt64(1)...200 {
        let link = Link(transport, seed: seed, conditions: .hostile)
        link.advance(to: .seconds(40))
        #expect(link.takeEvents().filter { if case .allocated = $0 { true } else { false } }.count == 1, "seed \(seed)")
        #expect(link.client.bindChannel(to: peer, now: link.now) == 0x4000)
        link.advance(to: .seconds(80))
        #expect(link.takeEvents() == [.channelBound(peer, number: 0x4000), .permissionCreated(peer)], "seed \(seed)")
        // Used now and then, the channel, its permission and the allocation
        // are refreshed through the loss too (the refreshes are silent but
        // for the allocation's).
        for second in stride(from: 100, through: 1200, by: 100) {
            link.client.send([UInt8(second / 100)], to: peer, now: link.now)
            link.advance(to: .seconds(Int64(second)))
        }
        #expect(link.takeEvents() == [.refreshed(lifetime: .seconds(600)), .refreshed(lifetime: .seconds(600))],
                "seed \(seed)")
        #expect(link.client.isAllocated)
        if transport == .tcp {
            #expect(link.server.requests.count == link.sent.filter { (try? STUNMessage.decode($0))?.type.messageClass == .request }.count)
        }
    }
}
