import Foundation
import Glibc
import Synchronization
import Testing

/// Roaming as a laptop does it, in one cone × cone `Tools/natlab` lab:
/// `natlab roam` brings up the host's other interface (another LAN of its
/// router, so another address and NAT mapping), moves the default route
/// there and takes the old one down; `natlab flap` takes the link down for
/// 5 s and back. Left moves, then both at once, then left's link flaps:
/// each time both sides type during the change, and the mover types a line
/// once its new address is up. Everything arrives exactly once, in order;
/// the recovery (new address up → that line at the peer) is printed. It is
/// bounded by chatcli serve, which frees the mover's old, silently dead
/// signaling seat after a 2 s ping (see `RoomFullTests`). Needs root.
@Suite(.ownThreadFirst, .enabled(if: getuid() == 0, "natlab needs root"))
struct RoamingTests {
    @Test func aChatFollowsANewInterfaceOnOneSideThenBothThenALinkDownFiveSeconds() throws {
        let lab = try NATLab(left: "cone", right: "cone")
        let (alice, bob) = try lab.connectedChat()
        let peers = ["left": alice, "right": bob]
        var received = ["left": [String](), "right": [String]()]
        var recoveries: [String] = []
        for (round, (movers, flap)) in [(["left"], false), (["left", "right"], false), (["left"], true)].enumerated() {
            let changes = try movers.map { side in
                try ChildProcess(NATLab.script, (flap ? ["flap", "--prefix", lab.prefix, side, "5"] : ["roam", "--prefix", lab.prefix, side]),
                                 name: "\(flap ? "flap" : "roam") \(side)")
            }
            // Typed while the change is under way (during the 5 s outage, for the flap).
            for side in ["left", "right"] {
                let lines = (0..<5).map { "\(round) \(side) during \($0)" }
                peers[side]?.write(lines.map { $0 + "\n" }.joined())
                received[side == "left" ? "right" : "left", default: []] += lines
            }
            var upAt: [Double] = []
            for (side, change) in zip(movers, changes) {
                try #require(change.waitForExit(timeout: 30) == 0, "\(change.transcript)")
                upAt.append(try #require(change.stdout.last.flatMap(Double.init), "\(change.transcript)"))
                peers[side]?.write("\(round) \(side) after\n")
                received[side == "left" ? "right" : "left", default: []].append("\(round) \(side) after")
            }
            // Each mover's line, waited for side by side (both move at once in round 1).
            let expected = received, up = upAt
            let seconds = Mutex([Double](repeating: .infinity, count: movers.count))
            DispatchQueue.concurrentPerform(iterations: movers.count) { index in
                let other = movers[index] == "left" ? "right" : "left"
                let got = peers[other]?.waitForMessages(count: expected[other, default: []].count, timeout: 30) ?? []
                if got.contains("\(round) \(movers[index]) after") {
                    let took = Self.monotonic() - up[index]
                    seconds.withLock { $0[index] = took }
                }
            }
            for (index, side) in movers.enumerated() {
                let took = seconds.withLock { $0[index] }
                recoveries.append(String(format: "%@ %@ %.2f s", flap ? "flap" : "roam", side, took))
                // The issue's 2 s where the address comes back; a new one also waits for the server's 1 s probe of the old seat (bounded loosely: the suite runs loaded).
                #expect(took < (flap ? 2 : 5), "\(round): \(side)'s line after the change took \(took) s\n\(alice.transcript.suffix(2000))\n\(bob.transcript.suffix(2000))")
            }
        }
        // Exactly once, in order: nothing lost or repeated across three changes.
        #expect(bob.waitForMessages(count: received["right", default: []].count, timeout: 30) == received["right"])
        #expect(alice.waitForMessages(count: received["left", default: []].count, timeout: 30) == received["left"])
        print("natlab roaming recovery (new address up → line at the peer): \(recoveries.joined(separator: ", "))")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 20) == 0, "\(alice.transcript.suffix(2000))")
        #expect(bob.waitForEvent("peer_left", timeout: 20) != nil)
        bob.closeInput()
        #expect(bob.waitForExit(timeout: 20) == 0)
    }

    /// CLOCK_MONOTONIC in seconds, the clock `natlab roam` reports.
    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
