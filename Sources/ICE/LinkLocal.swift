import STUN

/// IPv6 link-local addresses (fe80::/10, RFC 4291 §2.5.6) reach only their
/// own link: a link-local base is paired only with link-local remote
/// candidates (and a routable base only with routable ones), and it asks no
/// STUN or TURN server anything. The runtime gives a link-local
/// destination the zone (interface index) of the base's socket.
extension STUNAddress {
    var isLinkLocal: Bool { family == .ipv6 && ip[0] == 0xFE && ip[1] & 0xC0 == 0x80 }
}

extension ICEAgent {
    /// Same family, and both on the link or both routable.
    static func pairable(base: STUNAddress, remote: STUNAddress) -> Bool {
        base.family == remote.family && base.isLinkLocal == remote.isLinkLocal
    }

    /// The host bases that can reach a STUN or TURN server.
    var routableHostBases: [STUNAddress] { hostBases.filter { !$0.isLinkLocal } }
}
