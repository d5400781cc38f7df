import CSodium

/// What the PAKE key authenticates besides the code: the room and both
/// DTLS certificate fingerprints as each side sees them. A server that
/// swaps fingerprints gives the two sides different bindings, so their
/// keys differ and key confirmation fails.
public struct PAKEBinding: Equatable, Sendable {
    public var roomID: String
    public var offererFingerprint: [UInt8]
    public var answererFingerprint: [UInt8]

    public init(roomID: String, offererFingerprint: [UInt8], answererFingerprint: [UInt8]) {
        self.roomID = roomID
        self.offererFingerprint = offererFingerprint
        self.answererFingerprint = answererFingerprint
    }

    /// CI: the identities, initiator (offerer) first, as the draft recommends.
    var channelIdentifier: [UInt8] {
        LengthValue.concatenate(Array("chatcli-pake-v1".utf8), offererFingerprint, answererFingerprint)
    }

    var sessionID: [UInt8] { Array(roomID.utf8) }
}

/// One CPace exchange with explicit key confirmation, sans-IO, in the
/// initiator-responder setting (the initiator is the connection's offerer):
///
///     initiator                       responder
///     share(Ya)             ───────▶
///                           ◀───────  shareAndConfirm(Yb, Tb)
///     checks Tb; confirm(Ta) ──────▶  checks Ta
///
/// Messages in, replies out; `outcome` once it is settled. Any message out
/// of turn, malformed, replayed or reflected fails it, and a failure is
/// final: the code gets one guess.
public final class PAKEHandshake {
    public enum Role: Sendable { case initiator, responder }

    public enum Failure: Equatable, Sendable {
        /// The confirmation tag did not check: another code, or someone in the middle.
        case mismatch
        /// The peer's check failed (it said so).
        case peerFailed
        /// A message out of turn, malformed, or a share that is not a valid element.
        case protocolViolation
    }

    public enum Outcome: Equatable, Sendable {
        /// Both sides proved the same code over the same binding.
        case verified
        /// The peer ran no PAKE (it has no secret, or does not know PAKE).
        case unproven
        case failed(Failure)
    }

    enum State { case idle, awaitingShare, awaitingShareAndConfirm, awaitingConfirm(isk: [UInt8], peerShare: [UInt8]), done }

    public let role: Role
    let sid: [UInt8]
    var scalar: [UInt8]
    let share: [UInt8]
    var state: State = .idle
    public private(set) var outcome: Outcome?

    /// `prs`: the whole code as typed ("123456-brave-otter").
    public init(role: Role, prs: [UInt8], binding: PAKEBinding, random: inout some RandomNumberGenerator) {
        _ = Self.sodiumReady
        self.role = role
        sid = binding.sessionID
        let generator = CPace.generator(prs: prs, ci: binding.channelIdentifier, sid: sid)
        var scalar = CPace.sampleScalar(using: &random)
        var share = CPace.scalarMultiply(scalar, generator)
        while share == nil {   // a zero scalar (probability 2^-252)
            scalar = CPace.sampleScalar(using: &random)
            share = CPace.scalarMultiply(scalar, generator)
        }
        self.scalar = scalar
        self.share = share ?? []
        state = role == .initiator ? .idle : .awaitingShare
    }

    static let sodiumReady: Bool = sodium_init() >= 0

    /// The initiator's first message (nil for the responder, which waits).
    public func start() -> PAKEMessage? {
        guard role == .initiator, case .idle = state else { return nil }
        state = .awaitingShareAndConfirm
        return .share(y: share)
    }

    /// A message from the peer; the reply to send, if any.
    public func receive(_ message: PAKEMessage) -> PAKEMessage? {
        if case .done = state { return nil }
        switch (state, message) {
        case (_, .failed):
            settle(.failed(.peerFailed))
            return nil
        case (_, .unproven):
            settle(.unproven)
            return nil
        case (.awaitingShare, .share(let ya)):
            guard ya != share, let k = CPace.scalarMultiply(scalar, ya) else { return fail(.protocolViolation) }
            let isk = CPace.intermediateSessionKey(sid: sid, k: k, ya: ya, ada: [], yb: share, adb: [])
            state = .awaitingConfirm(isk: isk, peerShare: ya)
            wipeScalar()
            return .shareAndConfirm(y: share, tag: CPace.confirmationTag(isk: isk, sid: sid, share: share, ad: []))
        case (.awaitingShareAndConfirm, .shareAndConfirm(let yb, let tb)):
            guard yb != share, let k = CPace.scalarMultiply(scalar, yb) else { return fail(.protocolViolation) }
            let isk = CPace.intermediateSessionKey(sid: sid, k: k, ya: share, ada: [], yb: yb, adb: [])
            wipeScalar()
            guard CPace.constantTimeEqual(tb, CPace.confirmationTag(isk: isk, sid: sid, share: yb, ad: [])) else { return fail(.mismatch) }
            settle(.verified)
            return .confirm(tag: CPace.confirmationTag(isk: isk, sid: sid, share: share, ad: []))
        case (.awaitingConfirm(let isk, let ya), .confirm(let ta)):
            guard CPace.constantTimeEqual(ta, CPace.confirmationTag(isk: isk, sid: sid, share: ya, ad: [])) else { return fail(.mismatch) }
            settle(.verified)
            return nil
        default:
            return fail(.protocolViolation)
        }
    }

    /// A malformed PAKE message from the peer.
    public func receiveMalformed() -> PAKEMessage? {
        if case .done = state { return nil }
        return fail(.protocolViolation)
    }

    /// The peer went on without the PAKE (its chat `hello` came first, or it
    /// never answered): unproven, and the peer is told so.
    public func peerSkipped() -> PAKEMessage? {
        if case .done = state { return nil }
        settle(.unproven)
        return .unproven
    }

    private func fail(_ failure: Failure) -> PAKEMessage {
        settle(.failed(failure))
        return .failed
    }

    private func settle(_ outcome: Outcome) {
        self.outcome = outcome
        state = .done
        wipeScalar()
    }

    private func wipeScalar() {
        scalar.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }

    deinit { wipeScalar() }
}

