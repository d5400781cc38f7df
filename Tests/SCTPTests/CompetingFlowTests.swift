import TestSupport
import Testing
@testable import SCTP

@Suite struct CompetingFlowTests {
    /// BBR against a CUBIC flow through one 1-BDP bottleneck (25 MB/s,
    /// 100 ms): neither starves the other. The share is measured after
    /// both have run for a while, over the last 12 s of 20.
    @Test(arguments: [SCTPCongestionControl.cubic, .bbr])
    func bbrSharesABottleneckWithAnotherFlow(other: SCTPCongestionControl) {
        let profile = hundredMegabitPath(loss: 0, bandwidth: 6_250_000)
        let world = SharedBottleneck(profile: profile, algorithms: [.bbr, other], seed: 28)
        world.start(0)
        world.start(1)
        world.run(for: .seconds(8))
        let before = world.received
        world.run(for: .seconds(12))
        let bbr = Double(world.received[0] - before[0]), competitor = Double(world.received[1] - before[1])
        let share = bbr / (bbr + competitor)
        let utilisation = (bbr + competitor) / 12 / 6_250_000
        print("BBR against \(other): share \(share), link used \(utilisation)")
        #expect(share >= 1.0 / 3 && share <= 2.0 / 3)
        #expect(utilisation >= 0.8)
    }
}
