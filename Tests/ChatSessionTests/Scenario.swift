@testable import ChatClient
import Testing

/// Common openings: a creator and a joiner chatting in a fresh world.
extension World {
    /// Alice creates, Bob joins with her code; both connected.
    func pair(alicePlain: Bool = false, bobPlain: Bool = false, interactive: Bool = false) throws -> (alice: Client, bob: Client) {
        let alice = start("alice", .create(expiresIn: 600), plain: alicePlain, interactive: interactive)
        try #require(run(until: { alice.code != nil }), "alice got a code: \(alice.events)")
        let bob = start("bob", .join(code: alice.code ?? ""), plain: bobPlain, interactive: interactive)
        // Connected, and the code's PAKE settled (the `connected` event is out).
        let announced = { (c: Client) in c.has { if case .connected = $0 { true } else { false } } }
        try #require(run(until: { alice.isConnected && bob.isConnected && announced(alice) && announced(bob) }, limit: .seconds(30)),
                     "connected: \(alice.events) \(bob.events)")
        return (alice, bob)
    }

    /// `chatcli resume` of a crashed client: a new process with its saved room and device id.
    /// `chatcli resume`: the saved session's device id, certificate and pinned peer.
    func resume(_ crashed: Client) -> Client {
        let pinned = crashed.updates.last { if case .peerPinned = $0 { true } else { false } }
        guard case .peerPinned(let pin)? = pinned else {
            return start(crashed.name, .resumeRoom(roomID: crashed.roomID ?? "", deviceID: crashed.session.deviceID),
                         plain: crashed.plain, certificate: crashed.certificate)
        }
        return start(crashed.name, .resumeRoom(roomID: crashed.roomID ?? "", deviceID: crashed.session.deviceID),
                     plain: crashed.plain, certificate: crashed.certificate, pinnedPeer: pin)
    }
}

func lines(_ prefix: String, _ n: Int) -> [String] { (1...n).map { "\(prefix) \($0)" } }
