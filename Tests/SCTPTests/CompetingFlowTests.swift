import TestSupport
import Testing
@testable import SCTP

@Suite struct CompetingFlowTests {
    /// BBR against another flow through one 1-BDP bottleneck (50 Mbit/s,
    /// 100 ms): neither starves the other. The share is measured after
    /// both have run for a while, over the last 12 s of 20. Against BBR
    /// it is between a third and two thirds (0.55); against CUBIC BBR takes
    /// more (0.74: CUBIC keeps the deep queue full, so BBR's min-RTT
    /// filter, renewed every 10 s, takes in part of that queue), so that
    /// case only asserts that neither has less than a quarter.
    @Test(arguments: [(SCTPCongestionControl.cubic, 0.25), (.bbr, 1.0 / 3)])
    func bbrSharesABottleneckWithAnotherFlow(other: SCTPCongestionControl, least: Double) {
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
        #expect(share >= least && share <= 1 - least)
        #expect(utilisation >= 0.8)
    }
}
