import Foundation
import TestSupport
import Testing

/// The named `Tools/natlab` scenarios beyond the one-NAT-per-side matrix
/// (`natlab scenarios` lists them with the reason for each path): a real
/// chat in each, lines both ways exactly once, and the pair it settles on
/// checked by address, so "direct" means the path the scenario says (a
/// host address, or the NAT's public address for a hairpin) in the family
/// it says. Every lab has coturn, so a direct path is chosen over a working
/// relay. The scenarios run side by side, each in its own lab. Needs root.
@Suite(.ownThread, .enabled(if: getuid() == 0, "natlab needs root"),
       .enabled(if: NATLab.coturnInstalled, "needs coturn's turnserver (apt-get install coturn)"))
struct NATScenarioTests {
    /// What each side's `connected` event must name as the remote address
    /// (its start; IPv6 in brackets), or `relay` for both sides relayed.
    struct Expected: Sendable, CustomStringConvertible {
        let scenario: String
        /// What the joiner (right) sees of the creator (left), and the reverse.
        let creatorSeenAs: String, joinerSeenAs: String

        var relay: Bool { creatorSeenAs == "relay" }
        var description: String { scenario }
    }

    static let scenarios: [Expected] = [
        // Left's mapping on the carrier NAT; right's on its own NAT.
        Expected(scenario: "cgnat", creatorSeenAs: "198.18.0.3:", joinerSeenAs: "198.18.0.2:"),
        Expected(scenario: "cgnat-symmetric", creatorSeenAs: "relay", joinerSeenAs: "relay"),
        // Both see the carrier NAT's address: the packets went through its hairpin.
        Expected(scenario: "cgnat-hairpin", creatorSeenAs: "198.18.0.3:", joinerSeenAs: "198.18.0.3:"),
        Expected(scenario: "cgnat-no-hairpin", creatorSeenAs: "relay", joinerSeenAs: "relay"),
        Expected(scenario: "same-lan", creatorSeenAs: "10.201.1.2:", joinerSeenAs: "10.201.1.3:"),
        Expected(scenario: "subnets", creatorSeenAs: "10.201.1.2:", joinerSeenAs: "10.201.2.2:"),
        Expected(scenario: "subnets-hairpin", creatorSeenAs: "198.18.0.1:", joinerSeenAs: "198.18.0.1:"),
        Expected(scenario: "subnets-no-hairpin", creatorSeenAs: "relay", joinerSeenAs: "relay"),
        Expected(scenario: "ipv6-firewall", creatorSeenAs: "[2001:db8:1::2]:", joinerSeenAs: "[2001:db8:2::2]:"),
        Expected(scenario: "ipv6-only", creatorSeenAs: "[2001:db8:1::2]:", joinerSeenAs: "[2001:db8:2::2]:"),
        // IPv6-only against IPv4-only: the left side's relayed address is IPv4 (RFC 6156).
        Expected(scenario: "ipv6-to-ipv4", creatorSeenAs: "relay", joinerSeenAs: "relay"),
        // Symmetric × cone relays without it: the port miniupnpd mapped for left (PCP) makes it direct.
        Expected(scenario: "upnp", creatorSeenAs: "44.0.0.1:", joinerSeenAs: "198.18.0.2:"),
    ]

    @Test(arguments: scenarios)
    func chatTakesTheScenariosExpectedPath(_ expected: Expected) throws {
        let lab = try NATLab(scenario: expected.scenario)
        let run = try NATMatrixTests.chatEvents(in: lab, from: ChatTests.messages("L", sizes: [1_200, 16_384]),
                                                ChatTests.messages("R", sizes: [1_200, 16_384]))
        for (side, event, seenAs) in [("joiner", run.joiner, expected.creatorSeenAs), ("creator", run.creator, expected.joinerSeenAs)] {
            let path = event["path"] as? String ?? "", remote = event["remote"] as? String ?? ""
            if expected.relay {
                // Through coturn's IPv4 relayed addresses, whatever family reached it.
                let local = event["local"] as? String ?? ""
                #expect(path == "relay" && (local + remote).contains("relay 198.18.0.12:"),
                        "\(expected): the \(side) connected over \(path) (\(local) to \(remote))")
            } else {
                // "host 10.201.1.2:40000": the candidate type, then the address.
                let address = remote.split(separator: " ").last.map(String.init) ?? ""
                #expect(path != "relay" && address.hasPrefix(seenAs), "\(expected): the \(side) connected to \(remote), not \(seenAs)…")
            }
        }
        // The user-visible bound is 2 s direct, 3 s relayed (a median on a quiet machine,
        // `natlab matrix --extended`); here, beside the rest of the suite, generously.
        #expect(run.seconds < 15, "\(expected): connected \(run.seconds) s after join started")
        print("natlab scenario \(expected): \(run.joiner["path"] ?? "?") \(run.joiner["remote"] ?? "?") in \(String(format: "%.2f", run.seconds)) s")
    }
}
