/// Packetization Layer Path MTU Discovery (RFC 8899) for SCTP over DTLS:
/// the association starts at the base size every path carries (1200 bytes,
/// RFC 8261 §5) and probes larger packets — a HEARTBEAT padded with a PAD
/// chunk (RFC 8899 §6.2.1.1, RFC 4820) to the probed size. A probe answered
/// by its HEARTBEAT ACK confirms the size; a probe lost `maxProbes` times
/// ends the search at the last confirmed size. A black hole (data at the
/// larger size no longer getting through) falls back to the base.
///
/// Plain state: the association asks `nextProbe(now:)` what to send and
/// reports acks and timeouts; no clock inside.
struct PathMTUSearch {
    enum Phase: Equatable { case disabled, searching, complete }

    let base: Int
    /// Sizes tried in order (SCTP packet bytes, DTLS plaintext): a 1500-byte
    /// Ethernet path with IPv6 and DTLS overhead, a 9000-byte jumbo frame, and
    /// the largest DTLS record (2^14), which loopback and most VMs carry.
    let candidates: [Int]
    static let maxProbes = 3
    /// The candidate for a 1500-byte Ethernet path.
    static let ethernetSize = 1400
    private(set) var phase: Phase
    /// The confirmed packet size (PLPMTU).
    private(set) var size: Int
    private var next = 0
    private var attempts = 0
    /// The probe in flight: its size, its nonce, and when it counts as lost.
    private(set) var outstanding: (size: Int, nonce: UInt32, deadline: Duration)?
    private var nonce: UInt32 = 0

    init(base: Int, maximum: Int) {
        self.base = base
        size = base
        candidates = [1400, 8800, 16384].filter { $0 > base && $0 <= maximum }
        phase = candidates.isEmpty ? .disabled : .searching
    }

    var deadline: Duration? { outstanding?.deadline }

    /// The next probe to send now, if one is due: (size, nonce).
    mutating func nextProbe(now: Duration, timeout: Duration) -> (size: Int, nonce: UInt32)? {
        guard phase == .searching, outstanding == nil, next < candidates.count else { return nil }
        nonce &+= 1
        let probe = (candidates[next], nonce)
        outstanding = (probe.0, probe.1, now + timeout)
        attempts += 1
        return probe
    }

    /// A HEARTBEAT ACK for probe `nonce`: true when it raised the size.
    mutating func acknowledged(nonce: UInt32) -> Bool {
        guard let probe = outstanding, probe.nonce == nonce else { return false }
        outstanding = nil
        size = probe.size
        next += 1
        attempts = 0
        if next == candidates.count { phase = .complete }
        return true
    }

    /// The probe's deadline passed without an ack.
    mutating func probeTimedOut(now: Duration) {
        guard let probe = outstanding, probe.deadline <= now else { return }
        outstanding = nil
        if attempts >= Self.maxProbes { phase = .complete }
    }

    /// Data sent at the probed size stopped arriving: back to the base
    /// size and no further search on this path (RFC 8899 §4.3).
    mutating func blackHole() -> Bool {
        guard size > base else { return false }
        size = base
        outstanding = nil
        phase = .complete
        return true
    }

    /// A new path (ICE restart, network change): search again from the base.
    mutating func restart() {
        guard !candidates.isEmpty else { return }
        size = base
        next = 0
        attempts = 0
        outstanding = nil
        phase = .searching
    }
}
