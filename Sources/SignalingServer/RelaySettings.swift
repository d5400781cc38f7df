import TURNServer

/// The embedded TURN relay's settings (`serve --no-turn`, `--turn-*`).
public struct RelaySettings: Sendable {
    /// Peers outside the default (globally routable) set that relayed
    /// addresses may reach (`--turn-allow-peer CIDR`, for labs and LANs).
    public var allowedPeers: [TURNPeerPolicy.Prefix] = []
    /// Ports relayed addresses are bound in (`--turn-relay-ports LOW-HIGH`);
    /// nil: any port the kernel picks.
    public var relayPorts: ClosedRange<UInt16>?
    /// Public addresses to advertise for relayed ones behind a 1:1 NAT
    /// (`--turn-external-ip PUBLIC[/LOCAL]`).
    public var externalAddresses: [TURNExternalAddress] = []
    /// The name or address `/api/ice-servers` gives for this relay
    /// (`--turn-host`): an instance's own, behind a load balancer that
    /// cannot carry UDP. Nil: the host the request came to.
    public var advertisedHost: String?
    public var allocationsPerUser = 10
    public var maxAllocations = 1_000
    /// Bytes per second, per allocation and in total.
    public var bandwidthPerAllocation = 16 * 1024 * 1024
    public var totalBandwidth = 256 * 1024 * 1024

    public init() {}
}
