import PAKE
import PeerConnection

/// Why the code did not prove the peer of this connection
/// (`{"event":"unproven","reason":…}`, WireProtocol §4c).
public enum UnprovenReason: String, Sendable {
    /// The peer ran no PAKE, or said it could not: it may know only the six
    /// digits (a browser, Inviso's app, `join 123456`), or the server hid it.
    case noPAKE = "no_pake"
    /// We have only the six digits: there is nothing to prove with.
    case digitsOnly = "digits_only"
    /// The PAKE did not finish within `ChatSession.pakeDeadline`.
    case pakeTimeout = "pake_timeout"
    /// The peer came back with a certificate nothing proved.
    case newCertificate = "new_certificate"
    /// A saved chat's peer shows another certificate than the pinned one.
    case peerChanged = "peer_changed"

    /// Why, in one sentence for the person.
    public var explanation: String {
        switch self {
        case .noPAKE:
            return "Your peer did not prove the code's secret part: it may know only the six digits (a browser, Inviso's app, "
                + "or 'chatcli join' with the digits alone), or the server in between hid the check."
        case .digitsOnly:
            return "You used only the six digits, which the server sees too, so the code cannot prove who your peer is."
        case .pakeTimeout:
            return "The code's check did not finish within \(ChatSession.pakeDeadline.components.seconds) s, so the code does not prove who your peer is."
        case .newCertificate:
            return "Your peer came back with a new certificate, which the code did not prove."
        case .peerChanged:
            return "Your peer presented another certificate than the one pinned for this chat, so it may not be your peer."
        }
    }
}

/// What a chat does with a peer the code did not prove.
public enum UnprovenPolicy: Sendable {
    /// A script without `--accept-unproven`: the chat ends (exit 1), nothing sent or shown.
    case refuse
    /// A person at the terminal: nothing crosses until they compare the
    /// safety words and type `/verify ok` (or leave): SSH's unknown-host prompt.
    case ask
    /// `--accept-unproven`, stated in advance: said (the `unproven` event), then the chat goes on.
    case accept
}

/// The trust gate: whenever the code did not prove the peer of a
/// connection (for any reason in `UnprovenReason`), nothing crosses in
/// either direction — no queued or typed line, no delivery `hello`, no name,
/// no file offer or byte, and nothing of the peer's is shown — until the
/// person accepts the peer (`/verify ok` with the safety words on screen)
/// or a script said in advance that it would (`--accept-unproven`).
/// Otherwise the chat ends with one sentence and exit 1.
extension ChatSession {
    /// Messages of the peer held at most while the gate is shut; more are dropped.
    static let heldMessageLimit = 1024
    static let heldControlLimit = 32

    /// Peer content (messages, names, offers, file channels) may cross the current connection.
    public var allowsPeerContent: Bool { codeAuth.allowsChat }

    /// Why the current connection waits for the person, if it does.
    public var awaitingAcceptance: UnprovenReason? { codeAuth.awaiting }

    /// The current connection's peer is not proven: shut the gate, say so,
    /// then ask, refuse or go on as the policy says.
    func unproven(_ reason: UnprovenReason) {
        guard let info = codeAuth.heldConnected else { return }
        guard !codeAuth.typedSecret else {
            // The joiner typed the whole code: never an unproven chat, whatever its flags.
            pakeFailed()
            return
        }
        timers.cancel(.pakeDeadline)
        codeAuth.handshake = nil
        codeAuth.awaiting = reason
        emit(.unproven(sas: info.sas, reason: reason))
        switch options.unproven {
        case .ask: break   // `peerVerifiedByWords` opens the gate, `/leave` ends the chat
        case .accept: openGate(auth: .none)
        case .refuse: refuse(reason)
        }
    }

    /// The person compared the safety words of the waiting connection (`/verify ok`):
    /// false if `sas` is not what it shows.
    func acceptWaitingPeer(sas: String) -> Bool {
        guard codeAuth.awaiting != nil, let info = codeAuth.heldConnected, info.sas == sas else { return false }
        codeAuth.wordsFingerprint = peer?.remoteCertificateFingerprint
        openGate(auth: .words)
        return true
    }

    private func openGate(auth: PeerAuth) {
        codeAuth.awaiting = nil
        codeAuth.acceptedFingerprint = peer?.remoteCertificateFingerprint
        release(auth)
    }

    /// Nothing was sent or shown; a changed pinned peer keeps the room (for
    /// `resume --accept-new-peer`), any other unproven peer is left.
    private func refuse(_ reason: UnprovenReason) {
        dropHeld()
        if reason == .peerChanged {
            fail(.peerChanged(session: options.sessionName))
            return
        }
        emit(.error(.peerUnproven))
        leave(status: 1, reportUndelivered: false)   // one sentence: it says nothing was sent
    }

    func dropHeld() {
        codeAuth.awaiting = nil
        codeAuth.heldConnected = nil
        codeAuth.heldIncoming = []
        codeAuth.heldControl = []
    }

    /// A chat message from the peer before the gate opened: held, never shown yet.
    func holdIncoming(_ text: String) {
        guard codeAuth.heldIncoming.count < Self.heldMessageLimit else { return }
        codeAuth.heldIncoming.append(text)
    }

    /// A `ctl` message (name, verified) before the gate opened: held too.
    func holdControl(_ message: ControlMessage) {
        guard codeAuth.heldControl.count < Self.heldControlLimit else { return }
        codeAuth.heldControl.append(message)
    }
}
