import SessionStore

/// The peer's certificate as a saved session trusts it.
public typealias PinnedPeer = SessionRecord.PinnedPeer

/// Trust on first use, per chat: the first connection that settles pins the
/// peer's certificate fingerprint (and whether the code proved it); every
/// later connection, in this process or a `chatcli resume` of the saved
/// session, must show the same certificate or the chat ends with
/// `peer_changed` (nothing sent or shown, the room kept, so that
/// `resume NAME --accept-new-peer` can accept a peer that really started
/// over). A chat the code proved stays proven across resumes, and so does
/// one whose safety words the user verified (`/verify ok`). Sessions saved
/// before identities were kept present a new certificate on resume, so they
/// pin nothing (`Options.pinsPeer`).
extension ChatSession {
    /// The chat channel opened: false when the peer is not the pinned one.
    func peerMatchesPin() -> Bool {
        guard options.pinsPeer, let pinned = options.pinnedPeer, let remote = peer?.remoteCertificateFingerprint else { return true }
        guard remote == pinned.fingerprint else { return false }
        // Pinned once the person (or the script) accepted it: no need to ask again.
        codeAuth.acceptedFingerprint = remote
        if pinned.provenByCode {
            // Proven in an earlier process: the PAKE does not run again.
            codeAuth.ran = true
            codeAuth.provenFingerprint = remote
        }
        if pinned.verifiedByWords { codeAuth.wordsFingerprint = remote }
        return true
    }

    /// The connection settled as `auth`: pin the peer at the first one, and
    /// record that the code proved it (never the other way round).
    func pinPeer(auth: PeerAuth) {
        guard options.pinsPeer, let remote = peer?.remoteCertificateFingerprint else { return }
        if let old = options.pinnedPeer, old.fingerprint == remote, old.provenByCode || auth != .pake { return }
        let words = options.pinnedPeer.map { $0.fingerprint == remote && $0.verifiedByWords } ?? false
        save(PinnedPeer(fingerprint: remote, provenByCode: auth == .pake, verifiedByWords: words))
    }

    /// `/verify ok`: the user compared `sas` aloud with the peer and they
    /// matched. If they are the current connection's words, its certificate
    /// is verified from now on: later connections with it (a resume of
    /// either side included) are `"auth":"words"`, and the saved session
    /// keeps it. False when `sas` is not the current connection's.
    @discardableResult
    public func peerVerifiedByWords(sas: String) -> Bool {
        if codeAuth.awaiting != nil {
            guard acceptWaitingPeer(sas: sas) else { return false }
        }
        guard codeAuth.settled != nil, let peer, peer.connectionInfo?.sas == sas,
              let remote = peer.remoteCertificateFingerprint else { return false }
        codeAuth.wordsFingerprint = remote
        if codeAuth.settled == PeerAuth.none { codeAuth.settled = .words }
        guard options.pinsPeer else { return true }
        var pin = options.pinnedPeer.flatMap { $0.fingerprint == remote ? $0 : nil } ?? PinnedPeer(fingerprint: remote, provenByCode: false)
        if !pin.verifiedByWords {
            pin.verifiedByWords = true
            save(pin)
        }
        return true
    }

    private func save(_ pin: PinnedPeer) {
        options.pinnedPeer = pin
        actions.append(.session(.peerPinned(pin)))
    }
}
