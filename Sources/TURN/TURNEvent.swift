import STUN

/// How the client reaches its TURN server. The relayed side is always UDP
/// (REQUESTED-TRANSPORT 17); this is only the client-to-server leg.
public enum TURNTransport: Hashable, Sendable {
    /// Datagrams: STUN transactions retransmit (RFC 8489 §6.2.1), and
    /// ChannelData goes unpadded.
    case udp
    /// A byte stream the owner connects: one transmission per request
    /// with a 39.5 s timeout, and ChannelData padded to 4 bytes (§12.5).
    case tcp
}

/// What a `TURNClient` reports to its owner.
public enum TURNEvent: Hashable, Sendable {
    /// The allocation exists: peers reach us at `relayed`; `mapped` is our
    /// address as the server saw it (a server-reflexive candidate).
    case allocated(relayed: STUNAddress, mapped: STUNAddress?, lifetime: Duration)
    /// The allocation was refreshed and now lasts `lifetime` from now.
    case refreshed(lifetime: Duration)
    /// The server relays traffic from and to this peer's IP (first
    /// install only; refreshes are silent).
    case permissionCreated(STUNAddress)
    /// The server refused or never answered a CreatePermission; data
    /// queued for this peer was dropped. The allocation itself lives on.
    case permissionFailed(STUNAddress, reason: TURNFailure)
    /// Sends to this peer now use ChannelData on `number`.
    case channelBound(STUNAddress, number: UInt16)
    /// The ChannelBind failed; sends to this peer keep using Send
    /// indications.
    case channelBindFailed(STUNAddress, reason: TURNFailure)
    /// Application data from a peer, out of a Data indication or a
    /// ChannelData message.
    case data(from: STUNAddress, [UInt8])
    /// `deallocate()` finished (or the server no longer had the allocation).
    case deallocated
    /// The allocation could not be made or was lost (its `description` is
    /// the sentence for the user). The client does nothing more after this.
    case failed(TURNFailure)
}
