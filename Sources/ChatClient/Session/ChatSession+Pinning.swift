import SessionStore

/// The peer's certificate as a saved session trusts it.
public typealias PinnedPeer = SessionRecord.PinnedPeer

/// Trust on first use, per chat: the first connection that settles pins the
/// peer's certificate fingerprint (and whether the code proved it); every
/// later connection, in this process or a `chatcli resume` of the saved
/// session, must show the same certificate or the chat ends with
/// `peer_changed` (nothing sent or shown, the room kept, so that
/// `resume NAME --accept-new-peer` can accept a peer that really started
/// over). A chat the code proved stays proven across resumes. Sessions saved
/// before identities were kept present a new certificate on resume, so they
/// pin nothing (`Options.pinsPeer`).
extension ChatSession {
    /// The chat channel opened: false (and the chat ended) when the peer is
    /// not the pinned one.
    func peerMatchesPin() -> Bool {
        guard options.pinsPeer, let pinned = options.pinnedPeer, let remote = peer?.remoteCertificateFingerprint else { return true }
        guard remote == pinned.fingerprint else {
            fail(.peerChanged(session: options.sessionName))
            return false
        }
        if pinned.provenByCode {
            // Proven in an earlier process: the PAKE does not run again.
            codeAuth.ran = true
            codeAuth.provenFingerprint = remote
        }
        return true
    }

    /// The connection settled as `auth`: pin the peer at the first one, and
    /// record that the code proved it (never the other way round).
    func pinPeer(auth: PeerAuth) {
        guard options.pinsPeer, let remote = peer?.remoteCertificateFingerprint else { return }
        if let old = options.pinnedPeer, old.fingerprint == remote, old.provenByCode || auth != .pake { return }
        let pin = PinnedPeer(fingerprint: remote, provenByCode: auth == .pake)
        options.pinnedPeer = pin
        actions.append(.session(.peerPinned(pin)))
    }
}
