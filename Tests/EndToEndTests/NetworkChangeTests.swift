import Foundation
import TestSupport
import Testing

/// A side's address changes under a live chat (in `Tools/natlab`, root
/// only), as when a laptop switches Wi-Fi: its old address is removed, a new
/// one added and the default route put back. chatcli sees it through
/// rtnetlink and reconnects at once, well before consent checks (8 s) or
/// the signaling heartbeat (35 s) would notice: what was typed meanwhile
/// arrives once, in order, and each side reports a second `connected`.
@Suite(.ownThread, .serialized) struct NetworkChangeTests {
    @Test(.enabled(if: getuid() == 0, "natlab needs root"))
    func theCreatorMovingToANewAddressReconnectsAtOnce() throws {
        try chatThroughAnAddressChange(of: "left")
    }

    @Test(.enabled(if: getuid() == 0, "natlab needs root"))
    func theJoinerMovingToANewAddressReconnectsAtOnce() throws {
        try chatThroughAnAddressChange(of: "right")
    }

    /// Between two symmetric NATs the chat is relayed: the mover's UDP
    /// allocation belonged to its old address and is made again from the new one.
    @Test(.enabled(if: getuid() == 0, "natlab needs root"), .enabled(if: NATLab.coturnInstalled, "needs coturn"))
    func aRelayedChatFollowsTheCreatorToANewAddress() throws {
        try chatThroughAnAddressChange(of: "left", nat: "symmetric")
    }

    /// A relay-only joiner moves: its UDP allocation follows the new address
    /// and the chat is back through the relay at once. (Here its signaling
    /// socket dies with the old address, and its return to the room makes
    /// the creator restart; were the socket to survive, the relayed
    /// candidate it announces again would.)
    @Test(.enabled(if: getuid() == 0, "natlab needs root"), .enabled(if: NATLab.coturnInstalled, "needs coturn"))
    func aRelayOnlyJoinerMovingToANewAddressReconnectsAtOnce() throws {
        try chatThroughAnAddressChange(of: "right", turn: true, joinFlags: ["--relay-only"])
    }

    /// `side` moves from 10.201.N.2 to 10.201.N.3 behind its NAT (the
    /// creator is on the left, the joiner on the right).
    private func chatThroughAnAddressChange(of side: String, nat: String = "cone", turn: Bool = false, joinFlags: [String] = []) throws {
        let lab = try NATLab(left: nat, right: nat, turn: turn || nat == "symmetric")
        let (alice, bob) = try lab.connectedChat(joinFlags: joinFlags)
        alice.write("before the move\n")
        #expect(bob.waitForMessages(count: 1, timeout: 20) == ["before the move"])

        let net = side == "left" ? "10.201.1" : "10.201.2"
        let move = "ip addr del \(net).2/24 dev eth0 && ip addr add \(net).3/24 dev eth0 && ip route replace default via \(net).1"
        let started = Date()
        let mover = try lab.exec(side, ["sh", "-c", move], name: "move \(side)")
        try #require(mover.waitForExit(timeout: 10) == 0, "\(mover.transcript)")
        let fromAlice = (0..<10).map { "alice during the move \($0)" }
        let fromBob = (0..<10).map { "bob during the move \($0)" }
        for (a, b) in zip(fromAlice, fromBob) {
            alice.write(a + "\n")
            bob.write(b + "\n")
        }

        let moverChild = side == "left" ? alice : bob
        let other = side == "left" ? bob : alice
        #expect(moverChild.waitForEvents("connected", count: 2, timeout: 30), "\(moverChild.transcript.suffix(3000))")
        let moverSeconds = Date().timeIntervalSince(started)
        #expect(other.waitForEvents("connected", count: 2, timeout: 30), "\(other.transcript.suffix(3000))")
        let otherSeconds = Date().timeIntervalSince(started)
        print("natlab \(nat)×\(nat) \(joinFlags.joined(separator: " ")), \(side) moved: reconnected after \(String(format: "%.2f", moverSeconds)) s (mover), \(String(format: "%.2f", otherSeconds)) s (peer)")
        if nat == "symmetric" || joinFlags.contains("--relay-only") {
            let connected = moverChild.stdout.last { $0.hasPrefix(#"{"event":"connected""#) } ?? ""
            #expect(connected.contains(#""path":"relay""#), "\(connected)")
        }
        #expect(bob.waitForMessages(count: 11, timeout: 30) == ["before the move"] + fromAlice, "\(bob.transcript.suffix(3000))")
        #expect(alice.waitForMessages(count: 10, timeout: 30) == fromBob, "\(alice.transcript.suffix(3000))")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 20) == 0, "\(alice.transcript.suffix(2000))")
        #expect(bob.waitForEvent("peer_left", timeout: 20) != nil)
        bob.closeInput()
        #expect(bob.waitForExit(timeout: 20) == 0)
    }
}
