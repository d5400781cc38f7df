import DTLS
import ICE
import SDP

extension PeerConnection {
    /// The offer (initiator): `a=setup:actpass`, candidates trickled separately.
    public func createOffer() -> String {
        localSetup = .actpass
        var offer = SessionDescription.offer(sessionID: random.next(), iceUfrag: agent.localCredentials.ufrag,
                                             icePwd: agent.localCredentials.pwd, fingerprint: sdpFingerprint, tlsID: tlsID)
        offer.codePAKE = config.announcesCodePAKE
        return offer.serialized()
    }

    /// Takes the peer's offer and returns our answer (`a=setup:active`: we are the DTLS client).
    public func acceptOffer(_ text: String) throws(PeerConnectionError) -> String {
        let offer = try parse(text)
        if let remote {
            guard isSameSession(offer) else { throw .certificateChanged }
            if offer.iceUfrag != remote.iceUfrag || offer.icePwd != remote.icePwd { restartAgent() }
        }
        var answer: SessionDescription
        do {
            answer = try SessionDescription.answer(to: offer, sessionID: random.next(), iceUfrag: agent.localCredentials.ufrag,
                                                   icePwd: agent.localCredentials.pwd, fingerprint: sdpFingerprint, tlsID: tlsID)
        } catch {
            throw .cannotAnswer(error)
        }
        answer.codePAKE = config.announcesCodePAKE
        localSetup = answer.setup ?? .active
        try apply(offer)
        return answer.serialized()
    }

    public func acceptAnswer(_ text: String) throws(PeerConnectionError) {
        try apply(try parse(text))
    }

    /// A trickled remote candidate (`candidate:…`, with or without `a=`);
    /// nil or empty is end-of-candidates. Held until the remote description.
    public func addRemoteCandidate(_ text: String?) {
        guard remote != nil else {
            pendingCandidates.append(text)
            return
        }
        guard let text, !text.isEmpty else {
            agent.remoteEndOfCandidates()
            return
        }
        if let candidate = ICECandidate(sdpAttribute: text) {
            noticePeerNetworkChange(candidate)
            agent.addRemoteCandidate(candidate)
        }
        drainICE()
    }

    var sdpFingerprint: SDPFingerprint {
        SDPFingerprint(algorithm: certificate.fingerprint.algorithm, value: certificate.fingerprint.hexValue)
    }

    private func parse(_ text: String) throws(PeerConnectionError) -> SessionDescription {
        do {
            return try SessionDescription.parse(text)
        } catch {
            throw .unusableDescription(error)
        }
    }

    private func apply(_ description: SessionDescription) throws(PeerConnectionError) {
        guard let fingerprint = Self.fingerprint(of: description) else {
            throw .noFingerprint
        }
        let role: DTLSSetup.Role
        if localSetup == .actpass {
            role = description.setup == .passive ? .client : .server   // the answerer chose
        } else {
            do {
                role = try DTLSSetup.localRole(local: localSetup, remote: description.setup)
            } catch {
                throw .roleConflict(error)
            }
        }
        let restart = remote != nil
        if restart, !isSameSession(description) { throw .certificateChanged }
        remote = description
        remoteFingerprint = fingerprint
        remoteDescriptionAt = now
        agent.setRemoteCredentials(ufrag: description.iceUfrag, pwd: description.icePwd)
        for candidate in description.candidates {
            if let c = ICECandidate(sdpAttribute: candidate) { agent.addRemoteCandidate(c) }
        }
        if description.endOfCandidates { agent.remoteEndOfCandidates() }
        if !restart {
            dtlsRole = role == .client ? .client : .server
            if role == .server { try startDTLS() }   // the server waits; the client starts once ICE has a path
        }
        // An end-of-candidates held from before the description belongs to
        // an earlier negotiation: the peer sends its own after its description.
        let held = pendingCandidates.filter { !($0 ?? "").isEmpty }
        pendingCandidates = []
        for candidate in held { addRemoteCandidate(candidate) }
        drainICE()
    }

    func startDTLS() throws(PeerConnectionError) {
        guard dtls == nil, let dtlsRole, let remoteFingerprint else { return }
        do {
            dtls = try DTLSEndpoint(role: dtlsRole, certificate: certificate, remoteFingerprint: remoteFingerprint, mtu: config.mtu, now: now)
        } catch {
            throw .cannotStartDTLS(error)
        }
        let early = earlyDTLS
        earlyDTLS = []
        for datagram in early { dtls?.handleInput(datagram: datagram, now: now) }
    }
}
