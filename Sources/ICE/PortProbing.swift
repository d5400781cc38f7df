import STUN

/// How a NAT maps one local socket (RFC 4787 §4.1), as port probing needs
/// to know it: `easy` keeps one public address for every destination
/// (endpoint-independent mapping: no NAT, cone NATs), `hard` picks a new
/// public port per destination (symmetric NATs).
public enum NATMapping: String, Hashable, Sendable {
    case easy
    case hard
}

/// Birthday-paradox port probing between a hard and an easy NAT (as
/// Tailscale's "How NAT traversal works" describes), off by default.
///
/// Design:
/// - *Knowing our side.* Every base asks two STUN servers on the same IP
///   (chatcli's server answers on its STUN port and the next one). Equal
///   mapped addresses mean `easy`, the same IP with different ports `hard`.
///   A base's srflx candidates are held until both answers are in, then
///   trickled together.
/// - *Telling the peer.* Those srflx candidates carry the extension
///   attribute `nat easy` or `nat hard` (RFC 8839 §5.1 `extension-att`,
///   which aiortc and browsers skip), so a hard side also shows its public
///   IP. Without the attribute on both sides nothing changes.
/// - *Probing.* The hard side asks the runtime for `hardSideSockets` extra
///   sockets on its base (`pollProbeSocketRequest`) and sends from each an
///   ordinary connectivity check to the easy side's srflx address, opening
///   that many random mappings on its NAT, each letting in only the easy
///   side. These checks are check-list pairs (retransmitted as usual), so
///   when a mapping gets through they become valid the normal way. The
///   easy side sends `easySideProbes` checks from its one base to random
///   ports of the hard side's IP; each opens its own NAT's filter for that
///   address. A probe that hits one of the hard side's mappings arrives
///   there as a peer check on a pair it already has (§7.3.1.4 triggered
///   check); a hard-side retransmission to an address the easy side has
///   probed arrives as a peer-reflexive candidate (§7.3.1.3). Either way a
///   direct pair becomes valid through the normal machinery and DTLS runs
///   over it. With 256 mappings among 64 512 ports, 2048 probes miss with
///   probability (1 − 256/64512)^2048 ≈ 0.03 %.
/// - *Authentication.* Probes are Binding requests with the session's
///   USERNAME and MESSAGE-INTEGRITY, answered per RFC 8445 §7.3 like any
///   check; anything else is dropped.
/// - *Pacing and stopping.* One probe per `probeInterval` (at most
///   `maxBurst` at once when the timer is late), stopping when a pair is
///   selected or after `patience`. Meanwhile the controlling side holds
///   back nominating a relayed pair, so relay stays the fallback.
/// - *Sockets.* Probe bases are neither announced nor gathered from; once a
///   pair is selected (or checking failed) every probe base but the
///   selected one is handed back (`pollReleasedProbeBases`) to be closed.
public struct PortProbingConfig: Hashable, Sendable {
    public var hardSideSockets = 256
    public var easySideProbes = 2048
    public var probeInterval: Duration = .milliseconds(1)
    public var maxBurst = 16
    /// From the start of probing until relay may be nominated instead.
    public var patience: Duration = .seconds(5)
    /// Where a hard NAT picks ports (Linux `--random-fully`: 1024-65535).
    public var ports: ClosedRange<UInt16> = 1024...65535

    public init() {}
}

/// Open `count` more UDP sockets on `base`'s IP (port 0) and hand their
/// addresses to `addProbeBases`.
public struct ProbeSocketRequest: Hashable, Sendable {
    public let base: STUNAddress
    public let count: Int
}

/// What port probing knows and has done; reset by an ICE restart.
struct PortProbingState: Sendable {
    enum Side: Hashable, Sendable {
        /// Probes from `base` to random ports of `peerIP`.
        case easy(base: STUNAddress, peerIP: [UInt8])
        /// Probes from every probe base to `peer`, the easy side's srflx.
        case hard(base: STUNAddress, peer: ICECandidate)
    }

    /// Mapped addresses each gather job got, by job index.
    var mapped: [Int: STUNAddress] = [:]
    var mapping: [STUNAddress: NATMapping] = [:]
    /// srflx candidates waiting for their base's classification.
    var held: [(base: STUNAddress, candidate: ICECandidate)] = []
    var peerHard: [UInt8]?
    var peerEasy: ICECandidate?
    var side: Side?
    var startedAt: Duration?
    var socketRequest: ProbeSocketRequest?
    /// Easy side: probes sent; hard side: probe bases started.
    var sent = 0
    var probedPorts: Set<UInt16> = []
    /// Probe bases survive a restart: the selected pair may use one.
    var locals: [LocalCandidate] = []
    var released: Set<STUNAddress> = []

    mutating func reset() {
        let kept = (locals, released)
        self = PortProbingState()
        (locals, released) = kept
    }
}

extension ICEAgent {
    // MARK: - Runtime interface

    /// Sockets the hard side wants for probing; ask once per call.
    public func pollProbeSocketRequest() -> ProbeSocketRequest? {
        defer { probing.socketRequest = nil }
        return probing.socketRequest
    }

    /// The sockets opened for a `ProbeSocketRequest`; probing starts at the
    /// next `handleTimeout`.
    public func addProbeBases(_ bases: [STUNAddress], now: Duration) {
        advance(to: now)
        guard case .hard(let base, _)? = probing.side else { return }
        for address in bases where address.family == base.family && !probing.locals.contains(where: { $0.base == address }) {
            let preference = ICEPriority.localPreference(for: address, interfaceIndex: 0x100 + probing.locals.count)
            let candidate = ICECandidate(
                foundation: ICEPriority.foundation(type: .host, baseIP: address.ip),
                priority: ICEPriority.candidate(type: .host, localPreference: preference),
                address: address, type: .host, related: nil, extensions: [])
            probing.locals.append(LocalCandidate(candidate: candidate, base: address, localPreference: preference))
        }
        runTimers()
    }

    /// Probe bases no longer needed: close their sockets.
    public func pollReleasedProbeBases() -> [STUNAddress] {
        guard selectedID != nil || state.isFailed else { return [] }
        let done = probing.locals.map(\.base).filter {
            !probing.released.contains($0) && $0 != selectedPair?.localBase
        }
        probing.released.formUnion(done)
        return done
    }

    /// How this agent's NAT maps `base`, once two STUN servers answered.
    public func natMapping(of base: STUNAddress) -> NATMapping? {
        probing.mapping[base]
    }

    // MARK: - Hooks

    /// A probe base the runtime has a socket for.
    func probeLocal(_ base: STUNAddress) -> LocalCandidate? {
        probing.locals.first { $0.base == base && !probing.released.contains(base) }
    }

    /// A gathered srflx candidate: trickled at once, or with probing held
    /// until its base is classified.
    func announceReflexive(_ candidate: ICECandidate, base: STUNAddress) {
        guard config.portProbing != nil else { return emit(.localCandidate(candidate)) }
        probing.held.append((base, candidate))
    }

    /// Every gather answer's mapped address, new or not, for classifying.
    func noteMapped(_ mapped: STUNAddress, job: Int) {
        guard config.portProbing != nil else { return }
        probing.mapped[job] = mapped
    }

    /// The peer's `nat` attribute on its srflx candidates.
    func notePeerMapping(_ candidate: ICECandidate) {
        guard config.portProbing != nil, candidate.type == .srflx, let address = candidate.address else { return }
        switch candidate.extensionValue("nat").flatMap(NATMapping.init(rawValue:)) {
        case .hard?: probing.peerHard = address.ip
        case .easy?: if probing.peerEasy == nil { probing.peerEasy = candidate }
        case nil: break
        }
    }

    /// Classifies bases whose two STUN answers are in and trickles their
    /// srflx candidates; a base with one answer once its lookups are over.
    func flushHeldReflexive() {
        guard !probing.held.isEmpty else { return }
        for base in Set(probing.held.map(\.base)) {
            let jobs = gatherJobs.indices.filter { gatherJobs[$0].base == base }
            let answers = jobs.compactMap { probing.mapped[$0] }
            let sameIP = answers.filter { $0.ip == answers.first?.ip }
            if sameIP.count >= 2 {
                probing.mapping[base] = Set(sameIP.map(\.port)).count == 1 ? .easy : .hard
            } else if !jobs.allSatisfy({ gatherJobs[$0].finished }) {
                continue
            }
            let tag = probing.mapping[base].map { [ICECandidate.Extension(name: "nat", value: $0.rawValue)] } ?? []
            for held in probing.held where held.base == base {
                var candidate = held.candidate
                candidate.extensions += tag
                emit(.localCandidate(candidate))
            }
            probing.held.removeAll { $0.base == base }
        }
    }
}
