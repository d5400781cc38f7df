import STUN

/// What an operator decides about the relay (`chatcli serve --turn-*`).
///
/// Defaults follow RFC 8656 where it names a value (allocation lifetime
/// 600 s by default and at most 3600 s, §7.2; permissions 300 s, §9;
/// channel bindings 600 s, §12) and coturn's open-proxy defaults
/// elsewhere: deny every peer that is not globally routable.
public struct TURNServerConfiguration: Sendable {
    /// REALM (RFC 8489 §14.9); clients key MESSAGE-INTEGRITY with it.
    public var realm: String
    /// The secret shared with whoever issues REST credentials (`/api/ice-servers`).
    public var secret: [UInt8]
    public var software: String? = "chatcli"
    /// Which peers a relayed address may reach.
    public var peerPolicy = TURNPeerPolicy()
    /// Relayed address families the owner can open (IPv6 relays need an
    /// IPv6 address to bind; a request for another family gets 440).
    public var relayFamilies: Set<TURNFamily> = [.ipv4]
    /// Behind a 1:1 NAT (a cloud VM with a private address): the public
    /// addresses relayed addresses are reached at, advertised in
    /// XOR-RELAYED-ADDRESS while the sockets stay bound to the local ones
    /// (coturn's `external-ip`).
    public var externalAddresses: [TURNExternalAddress] = []

    /// Allocations one user (the id after the colon of a REST username:
    /// one chat member) may hold at once; past it, 486.
    public var allocationsPerUser = 10
    /// Allocations one client IP address may hold at once, whatever
    /// credentials it shows (anyone may fetch fresh anonymous ones); past it, 486.
    public var allocationsPerClientAddress = 20
    /// Allocations the whole relay holds at once; past it, 508.
    public var maxAllocations = 1_000
    /// Peers one allocation may have permissions for; past it, 508.
    public var permissionsPerAllocation = 64
    /// Bytes per second one allocation may relay, both directions together.
    public var bandwidthPerAllocation = 16 * 1024 * 1024
    /// Bytes per second the whole relay may relay.
    public var totalBandwidth = 256 * 1024 * 1024

    /// RFC 8656 §7.2: the lifetime granted when none (or less) is asked.
    public var defaultLifetime: Duration = .seconds(600)
    /// RFC 8656 §7.2: at most this, whatever is asked (3600 s recommended).
    public var maxLifetime: Duration = .seconds(3600)
    /// RFC 8656 §9: permissions last exactly 300 s.
    public static let permissionLifetime: Duration = .seconds(300)
    /// RFC 8656 §12: channel bindings last 600 s.
    public static let channelLifetime: Duration = .seconds(600)
    /// A nonce is good for this long, then the client gets 438 and a fresh one.
    public var nonceLifetime: Duration = .seconds(600)

    public init(realm: String, secret: [UInt8]) {
        self.realm = realm
        self.secret = secret
    }
}

/// The family of a relayed transport address (RFC 8656 §7.1, RFC 6156).
public enum TURNFamily: Hashable, Sendable {
    case ipv4, ipv6
}

/// A 1:1 NAT mapping for relayed addresses (`serve --turn-external-ip
/// PUBLIC[/LOCAL]`): relayed addresses bound on `local` (any of the
/// public address's family when nil) are advertised on `public`, same port.
public struct TURNExternalAddress: Hashable, Sendable {
    public let `public`: [UInt8]
    public let local: [UInt8]?

    /// Nil unless both are 4 or 16 bytes, of one family.
    public init?(public: [UInt8], local: [UInt8]? = nil) {
        guard [4, 16].contains(`public`.count), local.map({ $0.count == `public`.count }) ?? true else { return nil }
        self.public = `public`
        self.local = local
    }

    func advertises(_ relayed: STUNAddress) -> Bool {
        local.map { $0 == relayed.ip } ?? (relayed.ip.count == `public`.count)
    }
}
