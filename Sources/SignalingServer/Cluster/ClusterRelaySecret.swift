import Redis
import Wire

/// The embedded relays' REST secret on a cluster without
/// `--turn-secret-file`: one for every instance, kept in Redis as
/// `P turn-secret` (hex, no expiry), so credentials any instance issues
/// allocate on every instance's relay.
///
/// Each instance offers the secret it holds (at its start, a fresh random
/// one) with `SET … NX` and reads the key back (two commands, pipelined, so
/// any Redis version will do): the first offer ever made the key, and every
/// instance adopts what it reads. Instances offer again at every heartbeat,
/// so a Redis that lost the key (flushed, or restarted without persistence)
/// gets the same secret back from whichever instance beats first, and
/// credentials already handed out stay good. The key only comes back
/// different when no running instance held it (all restarted while Redis was
/// empty) or an operator replaced it; then every instance switches, and its
/// relay keeps accepting the old secret for the credential lifetime.
enum ClusterRelaySecret {
    /// Secrets shorter or longer than this (in bytes) found in Redis are
    /// not adopted: not one an instance made (32 bytes), and not usable.
    static let acceptedLengths = 16...64

    static func key(prefix: String) -> String { prefix + "turn-secret" }

    /// `SET P turn-secret <hex> NX`, then `GET P turn-secret`: the reply to
    /// the second is the cluster's secret.
    static func offer(_ secret: [UInt8], prefix: String) -> [[String]] {
        [["SET", key(prefix: prefix), Hex.encode(secret), "NX"], ["GET", key(prefix: prefix)]]
    }

    /// What the `GET` found.
    enum Found: Equatable {
        case secret([UInt8])
        /// No key: it went between the two commands (a flush); the next offer makes it again.
        case missing
        /// Not hex, or not a usable length: an operator's mistake, to report.
        case unusable
    }

    static func parse(_ reply: RESPValue) -> Found {
        if reply.isNull { return .missing }
        guard let text = reply.string, text.utf8.count <= acceptedLengths.upperBound * 2,
              let bytes = Hex.decode(text), acceptedLengths.contains(bytes.count) else { return .unusable }
        return .secret(bytes)
    }
}
