/// The safety words the user has been shown and whether they verified them.
/// A peer that resumes brings a new connection with a new DTLS certificate,
/// so new words: the old comparison proves nothing about them, and a silent
/// change (the "verified" mark quietly gone) is exactly what someone taking
/// over the connection would want. So a change is said out loud.
public struct SafetyWords: Equatable, Sendable {
    /// The words of the current connection; nil before the first.
    public private(set) var current: String?
    /// The user typed `/verify ok` for `current`.
    public private(set) var verified = false

    public init() {}

    /// A connection is up with `sas`: what to tell the user, besides the
    /// connection sentence (which shows the words).
    /// `alreadyVerified`: the PAKE proved this connection, or the user verified
    /// these words with this peer before (a resumed chat), so there is nothing to compare.
    public mutating func connected(sas: String, alreadyVerified: Bool = false) -> (kind: ChatStyle.Kind, text: String)? {
        if alreadyVerified {
            current = sas
            verified = true
            return nil
        }
        guard let previous = current else {
            current = sas
            return (.notice, "Type /verify to see how to compare the safety words.")
        }
        guard sas != previous else { return nil }
        let wasVerified = verified
        current = sas
        verified = false
        return (.error, "The safety words changed (your peer reconnected with a new key): they are now \(sas). "
                + "Compare them again; /verify ok when they match."
                + (wasVerified ? " Your earlier verification was reset." : ""))
    }

    /// The code did not prove the peer of a connection with `sas`: the
    /// person must compare these words before anything crosses.
    public mutating func awaiting(sas: String) {
        current = sas
        verified = false
    }

    /// `/verify ok`: the words verified, or nil when there are none yet.
    public mutating func markVerified() -> String? {
        guard let current else { return nil }
        verified = true
        return current
    }
}
