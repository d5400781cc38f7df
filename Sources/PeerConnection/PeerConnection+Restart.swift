import DTLS
import ICE
import SDP

/// ICE restart (RFC 8445 §9, JSEP §5.2.1 / §5.3.1) on an established
/// connection: new ICE credentials and candidates are exchanged through
/// signaling while DTLS and SCTP carry on, so nothing sent is lost and the
/// channel needs no new handshake.
extension PeerConnection {
    /// True once the DTLS session is up: a lost path can be recovered by a
    /// restart instead of a new connection.
    public var canRestartICE: Bool { dtls?.state == .connected && !finished }

    /// True while the path is down (no answers to consent checks, or a
    /// restart has not found a new pair yet).
    public var isPathDown: Bool { pathDown }

    /// The offerer's restart: fresh credentials, gathering again, and a new
    /// offer to signal (same certificate and DTLS roles).
    public func restartICE() -> String {
        restartAgent()
        return createOffer()
    }

    func restartAgent() {
        agent.restart(newCredentials: ICECredentials.random(using: &random))
        drainICE()
    }

    /// Is `offer` a restart of this connection (same certificate and, when
    /// both carry one, the same `a=tls-id`)? Otherwise the peer started over
    /// (a new process, perhaps a resumed session with its saved certificate):
    /// a new connection.
    public func isSameSession(_ sdp: String) -> Bool {
        guard let description = try? SessionDescription.parse(sdp) else { return false }
        return isSameSession(description)
    }

    func isSameSession(_ description: SessionDescription) -> Bool {
        guard let fingerprint = Self.fingerprint(of: description), fingerprint == remoteFingerprint else { return false }
        guard let old = remote?.tlsID, let new = description.tlsID else { return true }
        return old == new
    }

    /// The peer announced that it runs the code's PAKE (`a=x-chatcli-pake`).
    public var peerRunsCodePAKE: Bool { remote?.codePAKE ?? false }

    /// The certificate fingerprint the description pins, if usable.
    static func fingerprint(of description: SessionDescription) -> Fingerprint? {
        guard let fp = description.preferredFingerprint else { return nil }
        return Fingerprint(sdpValue: "\(fp.algorithm) \(fp.value)")
    }

    /// ICE has a working pair again after an outage, or the chat moved to
    /// another pair (a restart the peer ran after its network changed):
    /// SCTP retransmits what is outstanding at once, and the owner hears the
    /// new path.
    func pathRestored() {
        let current = currentConnectionInfo()
        let moved = info.map { old in current.map { $0.local != old.local || $0.remote != old.remote } ?? false } ?? false
        guard pathDown || moved else { return }
        pathDown = false
        sctp?.pathRestored(now: now)
        if let current {
            info = current
            events.append(.reconnected(current))
        }
        flush()
    }

    /// The path stopped working; recoverable once DTLS is up.
    func pathLost(_ loss: PathLoss) {
        guard canRestartICE else {
            fail(.pathLost(loss))
            return
        }
        pathDown = true
        events.append(.disconnected(loss))
    }
}
