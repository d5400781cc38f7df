/// The session's peer connection, as one value whose cases carry exactly
/// the data legal in them (quinn-proto's `state.rs` shape): an offer to
/// answer exists only while a connection is being made, the glare clock,
/// our pending `hello` and whether the peer speaks delivery only while
/// there is a connection. No loose variables beside it can disagree.
enum PeerLeg {
    /// No connection and none asked for. Candidates the peer trickles
    /// meanwhile wait for the next connection.
    case none(candidates: [String?])
    /// Asked of the driver (`SessionAction.createPeer`) under `request` (an
    /// answer to an older request is stale); as the answerer, the `offer`
    /// to answer once it exists; candidates that came meanwhile.
    case requested(request: Int, offer: String?, candidates: [String?])
    /// The connection.
    case made(LivePeer)

    static var idle: PeerLeg { .none(candidates: []) }
}

/// What belongs to one connection.
struct LivePeer {
    let transport: any PeerTransport
    /// When our offer (fresh or an ICE restart) went out and no answer has
    /// come yet: the signaling state "have-local-offer", for offer glare.
    var offerSentAt: Duration?
    /// Our `hello` for this connection, until `ctl` is open to take it.
    var pendingHello: DeliveryMessage?
    /// The peer sent its `hello` on this connection (it acks on `ctl`).
    var speaksDelivery = false
}

extension ChatSession {
    /// The current connection, if one is made.
    var peer: (any PeerTransport)? {
        if case .made(let live) = leg { return live.transport }
        return nil
    }

    /// The connection asked of the driver and not made yet: its request number.
    var peerBeingCreated: Int? {
        if case .requested(let request, _, _) = leg { return request }
        return nil
    }

    /// The current connection's fields; writing one without a connection changes nothing.
    var offerSentAt: Duration? {
        get { if case .made(let live) = leg { live.offerSentAt } else { nil } }
        set { updateLive { $0.offerSentAt = newValue } }
    }
    var pendingHello: DeliveryMessage? {
        get { if case .made(let live) = leg { live.pendingHello } else { nil } }
        set { updateLive { $0.pendingHello = newValue } }
    }
    var peerSpeaksDelivery: Bool {
        get { if case .made(let live) = leg { live.speaksDelivery } else { false } }
        set { updateLive { $0.speaksDelivery = newValue } }
    }

    private func updateLive(_ change: (inout LivePeer) -> Void) {
        guard case .made(var live) = leg else { return }
        change(&live)
        leg = .made(live)
    }
}
