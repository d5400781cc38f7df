import ChatClient
import DTLS
import FileTransfer
import Glibc
import ICE
import PAKE
import PeerConnection
import Runtime
import Signaling

/// Runs a `ChatSession` on the event loop: feeds it REST replies, signaling
/// events, typed lines, the user's file requests and the time, tells it when
/// a connection's sockets had news, and does what it asks (requests, the
/// signaling socket, peer connections on UDP sockets, events for the
/// printer, the exit). All decisions are the session's; this is only the
/// I/O around it. Every input only hands the session its news and asks the
/// loop for a turn (`wake`): the session's actions are done in one flat
/// loop (`process`), never from inside another callback.
public final class ChatManager {
    public typealias Mode = SessionMode
    public typealias SessionUpdate = ChatClient.SessionUpdate

    let loop: EventLoop
    let http: HTTPClient
    let signaling: SignalingClient
    /// Where the session's events go (the terminal side prints them).
    public let onEvent: (ChatEvent) -> Void
    /// Pairing by code, and the whole chat when it is a two-person one.
    public let session: ChatSession
    /// The group room the code turned out to be (`enterGroup`): it runs the chat from then on.
    public private(set) var group: GroupSession?
    /// This member's display name in a group (`--as`).
    public var groupName: String?
    /// What runs the chat now: the session, or the group it handed over to.
    var core: any ChatCore { group ?? session }
    var links: [ObjectIdentifier: PeerLink] = [:]
    /// Links closing gracefully (`PeerLink.close`): the loop runs until they are done.
    var closing: [ObjectIdentifier: PeerLink] = [:]
    /// The session asked to leave the room while a connection was closing:
    /// done once the last one has closed.
    private var leavesWhenClosed = false
    private var stopped = false
    var timer: Timer?
    var networkWatcher: NetworkWatcher?
    /// Wakes the loop from file transfers' reading threads (`attach`).
    var waker: LoopWaker?
    /// Every signaling event, session action and peer event, for debugging.
    public var trace: ((String) -> Void)?
    /// The exit status, once the session finished.
    public private(set) var status: Int32?

    /// `--hard-nat-probing`: birthday-paradox port probing (PeerLink+Probing).
    public var hardNATProbing = false
    /// Off with `--no-port-mapping`: ask the gateway to map the ICE port (PeerLink+PortMapping).
    public var portMapping = true
    public var onFinish: ((Int32) -> Void)?
    /// Lifecycle changes worth saving (pending, accepted, closed).
    public var onSession: ((SessionUpdate) -> Void)?
    /// What file transfers did, for the user.
    public var onTransfer: ((FileTransfers.Update) -> Void)?

    public init(loop: EventLoop, connector: Connector, mode: Mode, options: ChatSession.Options? = nil,
                onEvent: @escaping (ChatEvent) -> Void) {
        self.loop = loop
        self.http = HTTPClient(connector: connector)
        self.signaling = SignalingClient(connector: connector)
        self.onEvent = onEvent
        var defaults = ChatSession.Options(authority: connector.server.authority, host: connector.server.authorityHost)
        if let options { defaults = options }
        session = ChatSession(mode: mode, options: defaults, now: loop.now.duration)
        signaling.onEvent = { [weak self] event in
            guard let self else { return }
            self.trace?("[signaling] \(event)")
            self.core.handleSignaling(event, now: self.loop.now.duration)
            self.wake()
        }
    }

    // MARK: Options before start

    /// The session's options (`ChatSession.Options`), set before `start`.
    public var options: ChatSession.Options {
        get { session.options }
        set { session.options = newValue }
    }
    /// The chat's DTLS certificate, one for all its connections (a resumed
    /// session's saved one); nil: a fresh one per connection.
    public var certificate: DTLSCertificate?
    /// On the LAN: link-local IPv6 host candidates too (see `NetworkInterfaces`).
    public var linkLocalCandidates = false

    // MARK: Running

    /// Starts the session and runs the loop until it finished; the exit status.
    public func run() -> Int32 {
        start()
        if status == nil { loop.run() }
        return status ?? 1
    }

    public func start() {
        followNetworkChanges()
        if let entry = rejoinGroup {
            startGroup(entry)
        } else {
            session.start(now: now)
        }
        process()
    }

    /// `chatcli resume` of a group member: straight back into its room, with its seat.
    public var rejoinGroup: GroupEntry?

    private func startGroup(_ entry: GroupEntry) {
        let group = GroupSession(entry: entry, options: GroupSession.Options(chat: session.options, name: groupName), now: now)
        if let template = session.transfers {
            // Each member's pair gets transfers of its own, set up as the chat's.
            group.makeTransfers = { template.configuredCopy() }
        }
        self.group = group
        group.start(now: now)
    }

    var now: Duration { loop.now.duration }

    // MARK: Inputs

    public func send(line: String) { core.send(line: line, now: now); wake() }
    public func endOfInput() { core.endOfInput(now: now); wake() }
    public func quit() { core.quit(now: now); wake() }
    public func leaveNow() { core.leaveNow(now: now); wake() }

    /// SIGINT (130) or SIGTERM (143).
    public func interrupt(signal: Int32 = 2) {
        core.interrupt(status: 128 + signal, now: now)
        wake()
    }

    @discardableResult
    public func sendControl(_ message: ControlMessage) -> Bool {
        let sent = session.sendControl(message)
        wake()
        return sent
    }

    /// `/verify ok` for these words: kept for this chat (ChatSession+Pinning).
    @discardableResult
    public func peerVerifiedByWords(sas: String) -> Bool {
        let verified = session.peerVerifiedByWords(sas: sas)
        wake()
        return verified
    }

    // MARK: File transfers

    /// Runs `files` on this chat's connections (`/send`, `send`, `receive`).
    /// Their reading threads wake the loop when they read on after the
    /// session found nothing to send (the loop never waits for a disk).
    public func attach(_ files: FileTransfers) {
        if waker == nil { waker = try? LoopWaker(loop: loop) { [weak self] in self?.wake() } }
        if let signal = waker?.signal {
            files.wake = { signal() }
        } else {
            files.readsAhead = false   // no pipe for the wake (out of descriptors): read on the loop rather than stall
        }
        session.attach(files)
    }
    /// The chat's file transfers, when attached (for what they show: offers, progress).
    public var files: FileTransfers? { session.transfers }

    /// Offers `source` to the peer (now, or once connected).
    public func sendFile(_ source: TransferSource, skipped: [String] = []) {
        session.handle(.send(source, skipped: skipped), now: now)
        wake()
    }
    /// In a group: offers the file or folder at `path` to every member (or
    /// one), each reading it through a source of its own.
    public func sendFileToGroup(path: String, skipped: [String], to member: MemberID? = nil) {
        group?.offer({ () throws(TransferError) -> any TransferSource in try DiskSource(path: path) }, skipped: skipped, to: member, now: now)
        wake()
    }
    public func acceptFile(_ id: Int) { transfer(.accept(id: id)) }
    public func declineFile(_ id: Int, reason: String = "declined") { transfer(.decline(id: id, reason: reason)) }
    /// Stops a transfer (either direction) and tells the peer.
    public func cancelFile(_ id: Int, reason: String = "cancelled") { transfer(.cancel(id: id, reason: reason)) }

    private func transfer(_ request: ChatSession.TransferRequest) {
        if let group { group.handleTransfer(request, now: now) } else { session.handle(request, now: now) }
        wake()
    }

    /// Offers waiting for the user's answer, and transfers under way, over every connection (a group's pairs).
    public var pendingOffers: [Int] { transferBooks.flatMap(\.pendingOffers).sorted() }
    public var activeTransfers: [(id: Int, direction: FileTransfers.Direction, name: String, meter: ProgressMeter)] {
        transferBooks.flatMap(\.active)
    }
    var transferBooks: [FileTransfers] { group?.fileTransfers ?? session.transfers.map { [$0] } ?? [] }
    /// `/verify ok NAME` in a group.
    public func verifyGroupMember(_ member: MemberID) -> Bool {
        let verified = group?.verifiedByWords(member: member, now: now) ?? false
        wake()
        return verified
    }

    /// In a group, the member a transfer is with.
    public func transferMember(_ id: Int) -> (id: String, name: String)? { group?.member(transfer: id) }

    // MARK: State for the user

    public static var maxMessageBytes: Int { ChatSession.maxMessageBytes }
    public var phase: ChatPhase { group?.phaseForPrompt ?? session.phase }
    /// The selected candidate pair of the current connection (`/status`).
    public var selectedPair: ICEPair? { session.connection?.selectedPair }
    public var undeliveredMessages: Int { core.undeliveredMessages }
    /// Messages and bytes each way over the whole session (all connections).
    public var counters: ChatCounters { session.counters }

    // MARK: Actions

    /// The session has news (an input was handed to it): its actions are
    /// done on the loop's next turn, from the top, so no callback ever runs
    /// inside another's processing.
    func wake() {
        loop.execute { [weak self] in self?.process() }
    }

    /// Does what the session asks until it asks nothing more: its actions,
    /// then what it handed the connections (SDP, candidates, messages, acks,
    /// file data) goes out, then the connections' events and progress go
    /// back to it; at most `maxRounds` times (a file transfer refills the
    /// send buffer each round). Then the timer is armed for its next deadline.
    func process() {
        var rounds = 0
        repeat {
            while let action = core.pollAction() {
                trace?("[session] \(action)")
                perform(action)
            }
            for link in links.values { link.flush() }
            rounds += 1
        } while status == nil && core.handlePeerActivity(now: now) && rounds < Self.maxRounds
        timer?.cancel()
        timer = nil
        if status == nil, core.hasActions { wake() }   // the last round's, after `maxRounds`
        if status == nil, let due = core.pollTimeout() {
            timer = loop.schedule(at: Instant(due)) { [weak self] in
                guard let self else { return }
                self.core.handleTimeout(now: self.now)
                self.process()
            }
        }
    }

    static let maxRounds = 64

    private func perform(_ action: SessionAction) {
        switch action {
        case .http(let id, let request, let timeout):
            http.send(request, timeout: timeout) { [weak self] result in
                guard let self else { return }
                self.core.handleReply(id, result, now: self.now)
                self.wake()
            }
        case .closeHTTP:
            http.close()
        case .signaling(let command):
            switch command {
            case .start: signaling.start()
            case .send(let message): signaling.send(message)
            case .stop:
                leavesWhenClosed = false
                signaling.stop()
            case .leave:
                // P2P first, then the room: what the session said last on the
                // connection (a PAKE `failed`, a goodbye) reaches the peer
                // before the server tells it we left. Bounded by the close's grace.
                if closing.isEmpty { leaveRoom() } else { leavesWhenClosed = true }
            }
        case .createPeer(let request, let isOfferer, let entries):
            createPeer(request: request, isOfferer: isOfferer, entries: entries)
        case .closePeer(let transport, let grace):
            let id = ObjectIdentifier(transport)
            guard let link = links.removeValue(forKey: id) else { break }
            closing[id] = link
            link.close(grace: grace) { [weak self] in
                guard let self else { return }
                self.closing[id] = nil
                if self.leavesWhenClosed && self.closing.isEmpty {
                    self.leavesWhenClosed = false
                    self.leaveRoom()
                }
                self.stopWhenClosed()
            }
        case .shutDownPeer(let transport):
            links.removeValue(forKey: ObjectIdentifier(transport))?.shutDown()
        case .event(let event):
            // The ack for a message leaves before the message reaches the
            // screen: killed right after showing it, we are not sent it again.
            if case .message = event { for link in links.values { link.flush() } }
            onEvent(event)
        case .transfer(let update):
            onTransfer?(update)
        case .session(let update):
            onSession?(update)
        case .finish(let code):
            finish(code)
        case .enterGroup(let entry):
            onSession?(.group(entry))
            startGroup(entry)
        }
    }

    /// Resolves the ICE servers off the loop, then makes the connection.
    private func createPeer(request: Int, isOfferer: Bool, entries: [ICEServerEntry]) {
        ResolvedICEServers.resolve(entries, loop: loop) { [weak self] servers in
            guard let self, self.status == nil else { return }
            self.createPeer(request: request, isOfferer: isOfferer, servers: servers)
            self.wake()
        }
    }

    private func createPeer(request: Int, isOfferer: Bool, servers: ResolvedICEServers) {
        if options.relayOnly && servers.turn.isEmpty {
            core.peerCreationFailed(.noTURN(.unresolvable), request: request, now: now)
            return
        }
        do {
            let link = try PeerLink(loop: loop, isOfferer: isOfferer, interfaces: localAddresses(), stunServers: servers.stun,
                                    turnServers: servers.turn, relayOnly: options.relayOnly, caFile: http.caFile, hardNATProbing: hardNATProbing,
                                    portMapping: portMapping,
                                    certificate: certificate)
            let transport = link.connection
            link.onActivity = { [weak self] in self?.wake() }
            links[ObjectIdentifier(transport)] = link
            core.peerCreated(transport, request: request, now: now)
        } catch {
            core.peerCreationFailed(error, request: request, now: now)
        }
    }

    private func finish(_ code: Int32) {
        guard status == nil else { return }
        status = code
        timer?.cancel()
        networkWatcher?.close()
        waker?.close()
        for link in links.values { link.shutDown() }
        links = [:]
        http.close()
        signaling.stop()
        stopWhenClosed()
    }

    /// The loop stops once the session finished and every peer link closing
    /// gracefully is done (its SCTP shutdown, at most a few seconds): the
    /// browser then sees its channels close, not only the server's `peer_left`.
    private func leaveRoom() {
        signaling.leave { [weak self] in
            guard let self else { return }
            self.core.signalingLeft(now: self.now)
            self.wake()
        }
    }

    private func stopWhenClosed() {
        guard let status, closing.isEmpty, !stopped else { return }
        stopped = true
        loop.stop()
        onFinish?(status)
    }

    /// Following the machine's network: without rtnetlink (forbidden, or not
    /// Linux) a change is still noticed, later, by consent checks and the heartbeat.
    func followNetworkChanges() {
        guard let watcher = try? NetworkWatcher(loop: loop) else { return }
        watcher.onChange = { [weak self] snapshot in
            guard let self else { return }
            self.signaling.networkChanged(addresses: snapshot.addresses)
            let addresses = self.linkLocalCandidates ? Set(self.localAddresses()) : snapshot.addresses
            for link in self.links.values { link.networkChanged(to: addresses) }
        }
        networkWatcher = watcher
    }

    /// The addresses ICE gathers host candidates on.
    private func localAddresses() -> [SocketAddress] {
        NetworkInterfaces.addresses(includeLinkLocal: linkLocalCandidates)
    }
}
