@testable import ChatClient
import HTTP1
import PeerConnection
import SignalingServer

/// One chatcli process in the `World`: a `ChatSession` and the driver
/// duties `ChatManager` has in the real binary, done in memory.
final class Client {
    unowned let world: World
    let name: String
    /// A two-person `ChatSession`, or a `GroupSession` (`group`) once the
    /// room turned out a group's (`enterGroup`, with these).
    var core: any ChatCore
    var groupOptions: GroupSession.Options?
    var groupRandom: (() -> any RandomNumberGenerator)?
    /// Each pair's file transfers, once in a group (as ChatManager makes them).
    var groupFiles: (() -> FileTransfers)?
    var session: ChatSession { core as! ChatSession }
    var group: GroupSession { core as! GroupSession }
    /// A peer that opens no `ctl` and never acks (a browser, aiortc).
    let plain: Bool
    /// This process's label (a new process has a new one).
    let label: String
    /// Its DTLS certificate: a resumed session's is the crashed process's (saved in the store).
    let certificate: String
    var events: [ChatEvent] = []
    var transfers: [FileTransfers.Update] = []
    var updates: [SessionUpdate] = []
    var status: Int32?
    var peers: [FakePeer] = []
    var connection: ConnectionID?
    var wantsSignaling = false
    var leaving = false
    var crashed = false
    /// How long each graceful close was allowed to wait for the peer's goodbye (`closePeer`).
    var closeGraces: [Duration] = []

    init(world: World, name: String, core: any ChatCore, plain: Bool, certificate: String? = nil) {
        self.world = world
        self.name = name
        self.core = core
        self.plain = plain
        label = "\(name)-\(world.clients.count)"
        self.certificate = certificate ?? label
    }

    var messages: [String] { events.compactMap { if case .message(let t) = $0 { t } else { nil } } }
    var code: String? { events.lazy.compactMap { if case .code(let c, _, _) = $0 { c } else { nil } }.first }
    var roomID: String? {
        if case .resumeRoom(let room, _) = session.mode { return room }
        return updates.lazy.compactMap {
            switch $0 {
            case .joined(_, let room, _, _), .accepted(let room): room
            default: nil
            }
        }.first
    }
    var isConnected: Bool { session.phase.isConnected }
    func count(_ event: ChatEvent) -> Int { events.filter { $0 == event }.count }
    func has(_ match: (ChatEvent) -> Bool) -> Bool { events.contains(where: match) }

    // MARK: Inputs, as the real driver gives them

    func type(_ line: String) { guard !crashed else { return }; core.send(line: line, now: world.now); process() }
    func quit() { core.quit(now: world.now); process() }
    func endOfInput() { core.endOfInput(now: world.now); process() }
    func leaveNow() { core.leaveNow(now: world.now); process() }
    func interrupt(_ status: Int32) { core.interrupt(status: status, now: world.now); process() }
    /// `/send`, `/accept`, `/decline`, `/cancel`.
    func files(_ request: ChatSession.TransferRequest) {
        guard !crashed else { return }
        session.handle(request, now: world.now)
        process()
    }

    func reply(_ id: Int, _ result: Result<HTTPResponse, ClientError>) {
        guard !crashed else { return }
        core.handleReply(id, result, now: world.now)
        process()
    }

    func signalingEvent(_ event: SignalingEvent) {
        guard !crashed else { return }
        core.handleSignaling(event, now: world.now)
        process()
    }

    /// The connection queues the event; the session polls it (only from its current connection).
    func deliver(_ event: PeerConnectionEvent, to peer: FakePeer) {
        guard !crashed else { return }
        peer.events.append(event)
        core.handlePeerActivity(now: world.now)
        process()
    }

    func progressed(_ peer: FakePeer) {
        guard !crashed else { return }
        core.handlePeerActivity(now: world.now)
        process()
    }

    // MARK: Actions

    func process() {
        while !crashed, let action = core.pollAction() {
            perform(action)
        }
    }

    private func perform(_ action: SessionAction) {
        switch action {
        case .http(let id, let request, _):
            world.rest(request, id: id, from: self)
        case .closeHTTP:
            break
        case .signaling(let command):
            switch command {
            case .start:
                wantsSignaling = true
                world.connectSignaling(self)
            case .send(let message):
                world.signal(message, from: self)
            case .leave:
                leaving = true
                wantsSignaling = false
                if connection == nil {
                    core.signalingLeft(now: world.now)
                } else {
                    world.signal(.leaveRoom, from: self)
                }
            case .stop:
                wantsSignaling = false
                if let connection {
                    self.connection = nil
                    world.route(world.hub.disconnect(connection))
                }
            }
        case .createPeer(let request, let isOfferer, _):
            let peer = FakePeer(world: world, owner: name, certificate: certificate, association: world.newAssociation(),
                                isOfferer: isOfferer, speaksControl: !plain)
            peers.append(peer)
            core.peerCreated(peer, request: request, now: world.now)
        case .closePeer(let transport, let grace):
            closeGraces.append(grace)
            transport.close()
        case .shutDownPeer(let transport):
            (transport as? FakePeer)?.closed = true
        case .event(let event):
            events.append(event)
        case .transfer(let update):
            transfers.append(update)
        case .session(let update):
            updates.append(update)
        case .finish(let code):
            status = code
        case .enterGroup(let entry):
            // As ChatManager does: a GroupSession takes the room from here.
            let group = GroupSession(entry: entry, options: groupOptions ?? GroupSession.Options(chat: session.options, name: name),
                                     now: world.now, random: groupRandom ?? { SystemRandomNumberGenerator() })
            group.makeTransfers = groupFiles
            core = group
            group.start(now: world.now)
        }
    }
}
