import Foundation
import TestSupport
import Testing

/// NATs that forget an idle UDP mapping early (`natlab up --udp-timeout`:
/// conntrack's UDP timeouts in the router namespaces). A chat left idle for
/// well past the timeout still delivers the next line, both ways, within
/// the bound of 1 s, on the same path and without an ICE restart:
/// consent freshness (RFC 7675, a check every 4–6 s) is the keepalive that
/// keeps both NATs' mappings and filters open. Lowering the timeout to
/// 10 s stands in for waiting 5 minutes behind a 30 s NAT; the 30 s NAT
/// itself is idle past its timeout too. The two run side by side. Needs root.
@Suite(.ownThreadFirst, .enabled(if: getuid() == 0, "natlab needs root"))
struct NATTimeoutTests {
    /// The routers' UDP timeout and the idle time: two and a half timeouts
    /// of a 10 s NAT, a timeout and 5 s of a 30 s one.
    @Test(arguments: [(10, 25.0), (30, 35.0)])
    func aChatIdleLongerThanTheNATsUDPTimeoutDeliversTheNextLineWithinASecond(timeout: Int, idle: TimeInterval) throws {
        let lab = try NATLab(left: "cone", right: "cone", options: ["--udp-timeout", String(timeout)])
        let alice = try lab.chatcli("left", ["create"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let bob = try lab.chatcli("right", ["join", code], name: "bob")
        let connected = try #require(alice.waitForEvent("connected", timeout: 30), "\(alice.transcript)\n\(bob.transcript)")
        try #require(bob.waitForEvent("connected", timeout: 10) != nil, "\(bob.transcript)")
        #expect(connected["path"] as? String == "srflx", "cone × cone is direct: \(connected)")
        alice.write("before\n")
        #expect(bob.waitForMessages(count: 1, timeout: 10) == ["before"])

        let printedBefore = (alice: alice.stdout.count, bob: bob.stdout.count)
        // The scenario itself is idleness: nothing is typed for `idle` seconds.
        Thread.sleep(forTimeInterval: idle)

        let sentAlice = Date()
        alice.write("after idle from alice\n")
        #expect(bob.waitForMessages(count: 2, timeout: 1).last == "after idle from alice",
                "not delivered within 1 s after \(idle) s idle\n\(alice.transcript)\n\(bob.transcript)")
        let aliceDelay = Date().timeIntervalSince(sentAlice)
        let sentBob = Date()
        bob.write("after idle from bob\n")
        #expect(alice.waitForMessages(count: 1, timeout: 1) == ["after idle from bob"], "\(alice.transcript)")
        print("natlab udp-timeout \(timeout) s, idle \(Int(idle)) s: delivered in",
              String(format: "%.2f s / %.2f s", aliceDelay, Date().timeIntervalSince(sentBob)))
        // Same path all along: no restart, no new pair, nobody seen away.
        for (name, child, printed) in [("alice", alice, printedBefore.alice), ("bob", bob, printedBefore.bob)] {
            let events = child.stdout.dropFirst(printed).compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
            }
            #expect(events.filter { ["reconnected", "ice", "peer_away", "peer_back"].contains($0) }.isEmpty, "\(name): \(events)")
        }
        alice.closeInput()
        bob.closeInput()
        #expect(alice.waitForExit(timeout: 15) == 0)
        #expect(bob.waitForExit(timeout: 15) == 0)
    }
}
