import Foundation
import TestSupport
import Testing

/// Named `Tools/natlab` scenarios beyond the one-NAT-per-side matrix, each
/// with the path it must take (NATTraversal.md says why). Needs root.
@Suite(.ownThread, .enabled(if: getuid() == 0, "natlab needs root"))
struct NATScenarioTests {
    /// One home router, two subnets (`--right shared`): the router routes
    /// between its LANs without NAT, so the peers connect on their host
    /// candidates, never through the NAT or a relay.
    @Test func twoSubnetsBehindOneRouterConnectDirectlyOnHostCandidates() throws {
        let lab = try NATLab(left: "cone", right: "shared")
        let (path, _) = try NATMatrixTests.chat(in: lab, from: ChatTests.messages("L", sizes: [1_200]),
                                                ChatTests.messages("R", sizes: [1_200]))
        #expect(path == "host", "expected host candidates on both ends, got \(path)")
    }
}
