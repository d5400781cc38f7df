import STUN
import Wire

/// An ICE agent (RFC 8445) for one UDP component, with trickle (RFC 8838)
/// and consent freshness (RFC 7675), sans-IO.
///
/// The ICE module finds a working path between two peers behind NATs: it
/// gathers host and server-reflexive candidates, pairs them with the peer's,
/// runs paced, authenticated connectivity checks, resolves role conflicts,
/// nominates a pair and then keeps asking the peer for consent to send.
///
/// The agent never touches a socket or a clock. The owner:
/// - adds the local addresses it has sockets for (`addLocalInterface`) and
///   STUN servers (`addSTUNServer`), and signals what the peer sends
///   (`setRemoteCredentials`, `addRemoteCandidate`, `remoteEndOfCandidates`);
/// - passes every received STUN datagram to `handleInput` (the caller
///   demultiplexes with `Demux.classify`) and calls `handleTimeout(now:)`
///   when `pollTimeout()` is due (a deadline at or before now means "now");
/// - after every call drains `pollTransmit()` and `pollEvent()`.
///
/// Time is a `Duration` since any origin the owner picks; randomness
/// (transaction ids, consent jitter) comes from the injected generator.
public final class ICEAgent {
    public internal(set) var role: ICERole
    public internal(set) var localCredentials: ICECredentials
    public internal(set) var remoteCredentials: ICECredentials?
    public let tieBreaker: UInt64
    public var config: ICEConfig
    public internal(set) var state: ICEState = .new
    /// The pair data flows on; kept through an ICE restart until a new one
    /// is selected.
    public internal(set) var selectedPair: ICEPair?

    var random: any RandomNumberGenerator
    var now: Duration
    /// Start of the current generation, for `connectTimeout`.
    var startedAt: Duration
    var generation = 0

    var localCandidates: [LocalCandidate] = []
    var stunServers: [STUNAddress] = []
    var remoteCandidates: [ICECandidate] = []
    /// Trickled before the remote credentials arrived (RFC 8838 §11.3).
    var bufferedRemoteCandidates: [ICECandidate] = []
    var remoteEnded = false

    var checkList = CheckList()
    var transactions: [STUNTransactionID: Outstanding] = [:]
    /// Start order of `transactions`, so timers fire deterministically.
    var transactionOrder: [STUNTransactionID] = []
    var nextCheckAt: Duration

    var gatherJobs: [GatherJob] = []
    /// Port mappings offered as candidates (`addMappedCandidate`), kept across restarts.
    var mappedAddresses: [(base: STUNAddress, external: STUNAddress)] = []
    var relays: [Relay] = []
    /// `close(now:)` was called: lost allocations stay lost.
    var relaysClosing = false
    var received = Deque<ICEReceived>()
    var gatheringCompleteSent = false

    var nominationAt: Duration?
    var nominatingPair: Int?
    var selectedID: Int?
    var consent = ConsentState()
    var probing = PortProbingState()

    var transmits = Deque<ICETransmit>()
    var events = Deque<ICEEvent>()

    public init(
        role: ICERole, localCredentials: ICECredentials, tieBreaker: UInt64, config: ICEConfig = ICEConfig(),
        now: Duration, random: any RandomNumberGenerator = SystemRandomNumberGenerator()
    ) {
        self.role = role
        self.localCredentials = localCredentials
        self.tieBreaker = tieBreaker
        self.config = config
        self.now = now
        self.startedAt = now
        self.nextCheckAt = now
        self.random = random
    }

    // MARK: - Inputs from the owner

    public func setRemoteCredentials(ufrag: String, pwd: String) {
        remoteCredentials = ICECredentials(ufrag: ufrag, pwd: pwd)
        let buffered = bufferedRemoteCandidates
        bufferedRemoteCandidates = []
        for candidate in buffered { addRemoteCandidate(candidate) }
    }

    /// A trickled remote candidate. Candidates that cannot be checked (TCP,
    /// mDNS names, other components) are remembered for diagnostics only.
    public func addRemoteCandidate(_ candidate: ICECandidate) {
        guard !state.isFailed else { return }
        guard let credentials = remoteCredentials else {
            if bufferedRemoteCandidates.count < config.maxRemoteCandidates { bufferedRemoteCandidates.append(candidate) }
            return
        }
        // A candidate of an earlier generation (before the peer's restart).
        if let ufrag = candidate.ufrag, ufrag != credentials.ufrag { return }
        notePeerMapping(candidate)
        if remoteCandidates.contains(where: { $0.address != nil && $0.address == candidate.address && $0.isUDP == candidate.isUDP }) {
            replacePeerReflexive(with: candidate)
            return
        }
        guard remoteCandidates.count < config.maxRemoteCandidates else { return }
        remoteCandidates.append(candidate)
        guard let address = candidate.address, candidate.isUDP, candidate.component == 1, address.port != 0 else { return }
        for local in pairableLocals where Self.pairable(base: local.base, remote: address) {
            checkList.add(local: local, remote: candidate, remoteAddress: address, limit: config.maxPairs)
        }
    }

    /// The peer signalled end-of-candidates (an empty candidate string).
    /// Signaling is ordered and a peer sends its description before its
    /// end-of-candidates, so one that comes before this generation's
    /// credentials belongs to an earlier one (a restart, or a peer that
    /// started over) and is ignored: it carries no ufrag to tell.
    public func remoteEndOfCandidates() {
        guard remoteCredentials != nil else { return }
        remoteEnded = true
        // With nothing left to check, failing must not wait for a timer.
        evaluateFailure()
    }

    /// A STUN datagram received on `localBase` from `source`, or anything a
    /// TURN server sends over UDP (`isTURNServer`). Responses to our
    /// transactions and the peer's checks are handled, relayed traffic is
    /// unwrapped (its application data then waits in `pollReceived`);
    /// anything else is dropped silently.
    public func handleInput(_ datagram: [UInt8], from source: STUNAddress, to localBase: STUNAddress, now: Duration) {
        advance(to: now)
        // A STUN server on the TURN server's address answers Binding requests.
        if let index = relayIndex(server: source, base: localBase),
           (try? STUNMessage.decode(datagram))?.type.method != .binding {
            relays[index].client.handleInput(datagram, now: now)
            drainRelay(index)
        } else if let base = resolveBase(localBase) {
            handleSTUN(datagram, from: source, base: base)
        }
        runTimers()
    }

    /// A STUN message on a base: our transactions' answers and the peer's
    /// checks. In relay-only mode host bases answer no checks, so nothing
    /// reveals their addresses.
    func handleSTUN(_ datagram: [UInt8], from source: STUNAddress, base: STUNAddress) {
        guard let message = try? STUNMessage.decode(datagram), message.type.method == .binding else { return }
        switch message.type.messageClass {
        case .request:
            guard !config.relayOnly || relayIndex(relayedBase: base) != nil else { return }
            handleCheckRequest(message, datagram: datagram, from: source, base: base)
        case .successResponse, .errorResponse: handleResponse(message, datagram: datagram, from: source, base: base)
        case .indication: break // keepalives from the peer (RFC 8445 §11)
        }
    }

    public func handleTimeout(now: Duration) {
        advance(to: now)
        runTimers()
    }

    /// The next time `handleTimeout` must run; at or before the last `now`
    /// when work is waiting (call it at once), `nil` when idle.
    public func pollTimeout() -> Duration? {
        var deadline: Duration?
        func consider(_ time: Duration?) {
            guard let time else { return }
            deadline = min(deadline ?? time, time)
        }
        guard !state.isFailed else { return nil }
        if gatherJobs.contains(where: { !$0.started }) || (!gatheringCompleteSent && gatheringDone) {
            consider(now)
        }
        consider(relayDeadline())
        for id in transactionOrder { consider(transactions[id]?.transaction.pollTimeout()) }
        if remoteCredentials != nil, checkList.hasPendingChecks { consider(nextCheckAt) }
        consider(nominationAt)
        if selectedID == nil { consider(startedAt + config.connectTimeout) }
        consider(consentDeadline())
        consider(portProbingDeadline)
        return deadline
    }

    public func pollTransmit() -> ICETransmit? {
        transmits.popFirst()
    }

    public func pollEvent() -> ICEEvent? {
        events.popFirst()
    }

    /// Queues application data (DTLS) on the selected pair, through its
    /// TURN server when the local candidate is relayed; drain
    /// `pollTransmit` afterwards. False with no pair or after consent was
    /// lost (RFC 7675 §5.1 forbids sending).
    @discardableResult
    public func send(_ payload: [UInt8]) -> Bool {
        guard let pair = selectedPair, !consent.lost else { return false }
        transmit(payload, from: pair.localBase, to: pair.remoteAddress)
        return true
    }

    // MARK: - Internals shared by the extensions

    func advance(to time: Duration) {
        if time > now { now = time }
    }

    func emit(_ event: ICEEvent) {
        events.append(event)
    }

    func setState(_ new: ICEState) {
        guard new != state else { return }
        state = new
        emit(.stateChanged(new))
    }

    /// The bases the runtime has sockets for.
    var hostBases: [STUNAddress] {
        localCandidates.filter { $0.candidate.type == .host }.map(\.base)
    }

    /// An exact base, or for a wildcard socket (0.0.0.0 / ::) the first
    /// base of that family and port.
    func resolveBase(_ address: STUNAddress) -> STUNAddress? {
        let known = hostBases
        if known.contains(address) || probeLocal(address) != nil { return address }
        guard address.ip.allSatisfy({ $0 == 0 }) else { return nil }
        return known.first { $0.family == address.family && $0.port == address.port }
    }

    /// One pass over every timer: transactions, paced checks, nomination,
    /// consent, gathering and the failure verdict.
    func runTimers() {
        guard !state.isFailed else { return }
        serviceRelays()
        startPendingGathering()
        serviceTransactions()
        sendPacedCheck()
        runPortProbing()
        runNomination()
        runConsent()
        finishGatheringIfDone()
        updateCompletion()
        evaluateFailure()
    }

    /// Sends from a base: a host base directly, a relayed one through its
    /// TURN server.
    func transmit(_ bytes: [UInt8], from base: STUNAddress, to destination: STUNAddress) {
        if let index = relayIndex(relayedBase: base) {
            relaySend(bytes, relay: index, to: destination)
        } else {
            transmits.append(ICETransmit(bytes: bytes, source: base, destination: destination))
        }
    }

    func randomTransactionID() -> STUNTransactionID {
        var id = STUNTransactionID.random(using: &random)
        while transactions[id] != nil { id = STUNTransactionID.random(using: &random) }
        return id
    }
}
