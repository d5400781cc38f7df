import PAKE
import PeerConnection
import Wire

/// Whether the code proved who the peer is (`connected`'s `auth`).
public enum PeerAuth: String, Sendable {
    /// Both sides proved the same secret code over this connection's certificates.
    case pake
    /// The user compared the safety words with this peer's certificate and
    /// marked them verified (`/verify ok`), on an earlier connection or
    /// before a resume: the same certificate needs no new comparison.
    case words
    /// Not proven by code: the safety words must be compared.
    case none
}

/// The code's PAKE for the current connection, and what it proved.
struct CodeAuthentication {
    /// The code's secret part (ours if we created it, typed if we joined).
    var secret: CodeSecret?
    /// The six digits, part of the password (PRS) with the secret.
    var locator: String?
    /// The joiner typed a secret: never fall back to an unproven chat.
    var typedSecret = false
    var handshake: PAKEHandshake?
    /// The current connection's outcome; nil while the PAKE runs.
    var settled: PeerAuth?
    /// The PAKE settled once: later connections are judged by the proven certificate alone.
    var ran = false
    /// The peer's certificate once proven, for later connections in this process.
    var provenFingerprint: [UInt8]?
    /// The peer's certificate once the user verified the safety words (ChatSession+Pinning).
    var wordsFingerprint: [UInt8]?
    /// The `connected` event and the peer's messages, held until the PAKE
    /// settles and, for a peer it did not prove, until the person accepts it.
    var heldConnected: ConnectionInfo?
    var heldIncoming: [String] = []
    var heldControl: [ControlMessage] = []
    /// The PAKE did not prove this connection's peer: the gate waits for the person (ChatSession+Trust).
    var awaiting: UnprovenReason?
    /// The peer's certificate once the person (or `--accept-unproven`) accepted it unproven.
    var acceptedFingerprint: [UInt8]?
    /// Without a secret: the user was told the peer's code had one.
    var toldUnproven = false
    /// Without a secret: the peer was told on this connection that we run no PAKE.
    var toldPeerNoPAKE = false

    /// Chat messages may flow (both ways) on the current connection.
    var allowsChat: Bool { settled != nil }

    /// The whole code as typed, the PAKE's password.
    var password: [UInt8] { Array("\(locator ?? "")-\(secret?.description ?? "")".utf8) }
}

/// The PAKE over the `ctl` channel (CPace with key confirmation, see
/// `PAKEHandshake`): run once the `chat` and `ctl` channels are open; until
/// it settles nothing typed is sent, nothing received is shown, and the
/// `connected` event waits. A failure ends the chat (exit 1) and burns the
/// room; a peer that runs no PAKE (no secret, or Inviso or a browser) is
/// unproven and waits at the trust gate (ChatSession+Trust) on both sides.
extension ChatSession {
    /// How long a peer gets to start or answer the PAKE once the channel is open.
    static let pakeDeadline: Duration = .seconds(10)

    /// The code as shown to the user: the locator, then the secret if any.
    func displayCode(_ locator: String) -> String {
        guard let secret = codeAuth.secret else { return locator }
        return "\(locator)-\(secret)"
    }

    func prepareCodeSecret(locator: String) {
        codeAuth.locator = locator
        switch mode {
        case .create:
            if codeAuth.secret == nil { codeAuth.secret = CodeSecret.random(using: &rng) }
        case .join:
            codeAuth.secret = options.codeSecret
            codeAuth.typedSecret = options.codeSecret != nil
        case .resumeWaiting:
            codeAuth.secret = options.codeSecret
        case .resumeRoom:
            // Only `receive CODE` run again has a code here: typed whole, it never falls back to unproven.
            codeAuth.secret = options.codeSecret
            codeAuth.typedSecret = options.codeSecret != nil && options.codeLocator != nil
        case .groupPair(_, _, let typed):
            // The group's creator made the secret, its joiners typed it (then no unproven fallback, as for a joiner).
            codeAuth.secret = options.codeSecret
            codeAuth.typedSecret = typed && options.codeSecret != nil
        }
    }

    /// The chat channel opened: announce it now, once the PAKE settled, or
    /// once the person accepted a peer the code did not prove.
    func codeConnectionOpened(_ info: ConnectionInfo) {
        codeAuth.settled = nil
        codeAuth.awaiting = nil
        codeAuth.heldConnected = info
        guard peerMatchesPin() else {
            unproven(.peerChanged)
            return
        }
        guard codeAuth.secret != nil, !codeAuth.ran || provesNewCertificateByCode else {
            judgeWithoutPAKE()
            startPAKEIfReady()
            return
        }
        guard peer?.peerRunsCodePAKE ?? false else {
            // A browser, Inviso or an older chatcli: no PAKE to wait for
            // (a joiner that typed the secret still never falls back).
            settle(.unproven, reason: .noPAKE)
            return
        }
        timers.set(.pakeDeadline, at: now + Self.pakeDeadline)
        startPAKEIfReady()
    }

    /// The peer came back with another certificate than the one the code
    /// proved, and this session proves such a peer by the code again.
    private var provesNewCertificateByCode: Bool {
        guard options.reprovesByCode, let proven = codeAuth.provenFingerprint else { return false }
        return peer?.remoteCertificateFingerprint != proven
    }

    /// No PAKE runs on this connection (it ran on an earlier one, or there
    /// is no secret): proven again only with the certificate the code, the
    /// person's words or the person's acceptance vouched for.
    private func judgeWithoutPAKE() {
        let remote = peer?.remoteCertificateFingerprint
        if let proven = codeAuth.provenFingerprint {
            if remote == proven {
                release(.pake)
                return
            }
            codeAuth.provenFingerprint = nil
            unproven(.newCertificate)
            return
        }
        if remote != nil, remote == codeAuth.wordsFingerprint {
            release(.words)
            return
        }
        if remote != nil, remote == codeAuth.acceptedFingerprint {
            release(.none)
            return
        }
        let seenBefore = codeAuth.ran || codeAuth.wordsFingerprint != nil || codeAuth.acceptedFingerprint != nil || mode.resumedDeviceID != nil
        unproven(seenBefore ? .newCertificate : .digitsOnly)
    }

    func codeConnectionEnded() {
        codeAuth.handshake = nil
        codeAuth.toldPeerNoPAKE = false
        dropHeld()
        codeAuth.settled = nil
        timers.cancel(.pakeDeadline)
    }

    /// The offerer starts once both channels are open (the answerer waits
    /// for its share). Without a secret, a peer that runs the PAKE is told
    /// at once, so that it does not wait for its deadline.
    func startPAKEIfReady() {
        guard let peer, peer.isOpen, peer.isControlOpen else { return }
        guard codeAuth.secret != nil else {
            if !codeAuth.ran, peer.peerRunsCodePAKE { tellPeerNoPAKE() }
            return
        }
        guard codeAuth.settled == nil, codeAuth.awaiting == nil, codeAuth.heldConnected != nil,
              peer.isOfferer, let handshake = makeHandshake() else { return }
        if let first = handshake.start() { sendPAKE(first) }
    }

    private func makeHandshake() -> PAKEHandshake? {
        if let handshake = codeAuth.handshake { return handshake }
        guard codeAuth.secret != nil, let peer, let remote = peer.remoteCertificateFingerprint, let roomID = currentRoomID else { return nil }
        let local = peer.localCertificateFingerprint
        let binding = PAKEBinding(roomID: roomID, offererFingerprint: peer.isOfferer ? local : remote,
                                  answererFingerprint: peer.isOfferer ? remote : local)
        let handshake = PAKEHandshake(role: peer.isOfferer ? .initiator : .responder, prs: codeAuth.password, binding: binding, random: &rng)
        codeAuth.handshake = handshake
        return handshake
    }

    /// A `pake` message on `ctl` (nil: malformed).
    func pakeMessage(_ message: PAKEMessage?) {
        guard codeAuth.secret != nil else {
            // We typed only the digits; the peer's code had a secret part
            // (it started the PAKE, or says it waited for one in vain).
            switch message {
            case .share?: tellPeerNoPAKE()
            case .unproven?: break
            default: return
            }
            if !codeAuth.toldUnproven {
                codeAuth.toldUnproven = true
                emit(.notice("Your peer's code has a secret part that you did not type, so the code does not prove who your peer is: compare the safety words."))
            }
            return
        }
        guard codeAuth.settled == nil, codeAuth.awaiting == nil, codeAuth.heldConnected != nil, let handshake = makeHandshake() else {
            if case .failed? = message, codeAuth.settled != nil || codeAuth.awaiting != nil { pakeFailed() }
            return
        }
        let reply = message.map { handshake.receive($0) } ?? handshake.receiveMalformed()
        if let reply { sendPAKE(reply) }
        settleIfDone(reason: .noPAKE)
    }

    /// The peer's delivery `hello` came while we waited for the PAKE: it runs none.
    func peerWentOnWithoutPAKE() {
        guard codeAuth.secret != nil, codeAuth.settled == nil, codeAuth.awaiting == nil, codeAuth.heldConnected != nil else { return }
        let handshake = makeHandshake()
        if let reply = handshake?.peerSkipped() { sendPAKE(reply) }
        settle(handshake?.outcome ?? .unproven, reason: .noPAKE)
    }

    func pakeDeadlinePassed() {
        guard codeAuth.settled == nil, codeAuth.awaiting == nil, codeAuth.heldConnected != nil else { return }
        guard let handshake = makeHandshake() else {
            settle(.unproven, reason: .pakeTimeout)
            return
        }
        if let reply = handshake.peerSkipped() { sendPAKE(reply) }
        settleIfDone(reason: .pakeTimeout)
    }

    private func settleIfDone(reason: UnprovenReason) {
        if let outcome = codeAuth.handshake?.outcome { settle(outcome, reason: reason) }
    }

    private func settle(_ outcome: PAKEHandshake.Outcome, reason: UnprovenReason) {
        timers.cancel(.pakeDeadline)
        codeAuth.ran = true
        switch outcome {
        case .verified:
            codeAuth.provenFingerprint = peer?.remoteCertificateFingerprint
            release(.pake)
        case .unproven where codeAuth.typedSecret:
            pakeFailed()
        case .unproven:
            unproven(reason)
        case .failed:
            pakeFailed()
        }
    }

    /// The PAKE settled, or the person accepted the peer: the `connected`
    /// event, then what was held both ways.
    func release(_ auth: PeerAuth) {
        codeAuth.settled = auth
        codeAuth.awaiting = nil
        codeAuth.handshake = nil
        pinPeer(auth: auth)
        if let info = codeAuth.heldConnected { emit(.connected(info, auth: auth)) }
        codeAuth.heldConnected = nil
        if peer?.isControlOpen ?? false { emit(.controlReady) }
        let control = codeAuth.heldControl
        codeAuth.heldControl = []
        for message in control { emit(.control(message)) }
        let held = codeAuth.heldIncoming
        codeAuth.heldIncoming = []
        for text in held { show(inbox.receive(text, now: now)) }
        flushOutbox()
    }

    /// Another code, or someone in the middle: nothing shown or sent, the
    /// saved session closed, the room left (so the code cannot be tried again).
    func pakeFailed() {
        dropHeld()
        timers.cancel(.pakeDeadline)
        switch state {
        case .finished, .leaving: return
        default: break
        }
        emit(.error(.pakeFailed))
        closeSession()
        leave(status: 1)
    }

    private func tellPeerNoPAKE() {
        guard !codeAuth.toldPeerNoPAKE else { return }
        codeAuth.toldPeerNoPAKE = true
        sendPAKE(.unproven)
    }

    private func sendPAKE(_ message: PAKEMessage) {
        guard let peer, peer.isControlOpen else { return }
        try? peer.sendControl(message.text)
    }
}
