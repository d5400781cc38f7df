import HTTP1
import Signaling
import Wire

/// The group's seat in the room: its socket, `join_room` with the device
/// id, the membership frames, and each pair's signaling, addressed to one
/// member and translated into the two-member room that pair believes in.
extension GroupSession {
    /// How often `join_room` is asked again after `room_full` (our old
    /// socket still holds the seat until it misses a ping).
    static let roomFullRetry: Duration = .milliseconds(200)

    /// In the room at last: ask for ICE servers (this member's
    /// TURN credentials), then open the socket.
    func enter(_ entry: GroupEntry) {
        emit(.progress("This is a group room (up to \(entry.seat.max) people); you are \(ownName)."))
        let id = nextRequestID
        nextRequestID += 1
        iceRequest = id
        actions.append(.http(id: id, RoomAPI.iceServersRequest(authority: options.chat.authority, roomID: entry.roomID,
                                                               deviceID: entry.deviceID), timeout: .seconds(5)))
    }

    func iceServersArrived(_ response: HTTPResponse?) {
        var offered = response.map(RoomAPI.iceServers) ?? []
        let extraSTUN = options.chat.extraICEServers.flatMap(\.urls).contains { ICEServerURL($0)?.isSTUN == true }
        if offered.isEmpty && !extraSTUN && options.chat.fallbackSTUN { offered = [ICEServerEntry(urls: ["stun:\(options.chat.host):3478"])] }
        iceServers = options.chat.extraICEServers + offered
        actions.append(.closeHTTP)
        actions.append(.signaling(.start))
    }

    func joinRoom() {
        guard socketOpen, case .room(let entry) = phase, let device = DeviceID(entry.deviceID) else { return }
        actions.append(.signaling(.send(.joinGroup(roomId: entry.roomID, deviceId: device))))
    }

    public func handleSignaling(_ event: SignalingEvent, now: Duration) {
        advance(now)
        switch event {
        case .open(let id):
            socketOpen = true
            clientID = id
            joinRoom()
        case .lost(let error, _):
            socketOpen = false
            if !serverLost {
                serverLost = true
                emit(.progress("Lost the server (\(error.message)). The chat goes on directly; reconnecting to the server in the background."))
            }
            // The pairs are not told: their rooms are the group's. What they
            // send meanwhile is lost, as on a pair's own dropped socket, and
            // the `room_ready` each gets once the group is seated again
            // renegotiates what needs it.
        case .failed(let error):
            fail(error)
        case .message(let message):
            handle(message)
        }
        drain()
    }

    private func handle(_ message: ServerMessage) {
        switch message {
        case .groupJoined(let joined):
            guard case .room(let entry) = phase, joined.roomId == entry.roomID else { return }
            roomFullSince = nil
            if serverLost {
                serverLost = false
                emit(.progress("Back in touch with the server."))
            }
            let seated = Set(joined.members.map(\.memberId))
            // Members we knew that are not seated now dropped out meanwhile.
            for id in order where !seated.contains(id) && members[id]?.present == true { memberLeft(id, reason: .disconnected) }
            for peer in joined.members { memberSeated(peer.memberId, offers: peer.isInitiator) }
        case .memberJoined(let roomId, let id, let offers, _):
            guard entry?.roomID == roomId, id != entry?.seat.memberID else { return }
            memberSeated(id, offers: offers)
        case .memberLeft(let roomId, let id, let reason, _):
            guard entry?.roomID == roomId else { return }
            memberLeft(id, reason: reason)
        case .relayed(let type, let from, let roomId, let payload):
            guard let from = from.flatMap(MemberID.init), let pair = members[from]?.pair else { return }
            pair.handleSignaling(.message(.relayed(type: type, from: from.rawValue, roomId: roomId, payload: payload)), now: now)
        case .roomFull:
            if roomFullSince == nil { roomFullSince = now }
            if let since = roomFullSince, now - since > .seconds(60) { return fail(.roomFull) }
            rejoinAt = now + Self.roomFullRetry
        case .leftRoom:
            if case .leaving(_, let status) = phase { finish(status) }
        case .error(let code):
            switch code {
            case .roomNotFound:
                actions.append(.session(.closed))
                fail(.roomNotFound)
            case .notAMember: fail(.protocolViolation("the server does not count this device a member of the group room"))
            default: emit(.progress("The server reported: \(code.rawValue)"))
            }
        default:
            break
        }
    }

    /// A member is in the room: new (its pair starts), or back.
    private func memberSeated(_ id: MemberID, offers: Bool) {
        guard case .room(let entry) = phase else { return }
        if members[id] == nil {
            // A room admits at most `max` members, ever: a server that
            // announces more gets no more pairs (each costs a connection).
            guard members.count < entry.seat.max - 1 else { return }
            var chat = options.chat
            chat.staysAfterPeerLeft = false
            chat.announcesLeave = false
            chat.codeSecret = entry.secret
            chat.codeLocator = entry.locator
            chat.groupMax = nil
            chat.notice = nil
            chat.pinsPeer = false
            // A member back as a new process (crashed, run again) proves the code again.
            chat.reprovesByCode = true
            let pair = ChatSession(mode: .groupPair(roomID: entry.roomID, iceServers: iceServers, typedSecret: entry.typedSecret),
                                   options: chat, now: now,
                                   random: makeRandom())
            pair.outbox.limit = Self.memberBacklog
            members[id] = Member(id: id, name: Self.handle(for: id), offers: offers, present: true, pair: pair)
            order.append(id)
            attachTransfers(to: pair, index: order.count - 1)
            pair.start(now: now)   // its `.signaling(.start)` "joins" its two-member room (perform)
            return
        }
        members[id]?.present = true
        members[id]?.offers = offers
        guard let pair = members[id]?.pair else { return }
        pair.handleSignaling(.message(.roomReady(roomId: entry.roomID, userCount: 2, isInitiator: offers)), now: now)
    }

    private func memberLeft(_ id: MemberID, reason: MemberLeaving) {
        guard let entry, let member = members[id] else { return }
        members[id]?.present = false
        guard let pair = member.pair else { return }
        let message: ServerMessage = reason == .left ? .peerLeft(roomId: entry.roomID) : .peerDisconnected(roomId: entry.roomID)
        pair.handleSignaling(.message(message), now: now)
    }

    // MARK: The pairs' actions

    /// Runs until no pair has anything left to do: each pair's actions are
    /// translated, which may give pairs more to do.
    func drain() {
        var busy = true
        while busy {
            busy = false
            for id in order {
                guard let pair = members[id]?.pair else { continue }
                while let action = pair.pollAction() {
                    busy = true
                    perform(action, of: id, pair)
                }
            }
        }
        leaveWhenPairsAreDone()
    }

    private func perform(_ action: SessionAction, of id: MemberID, _ pair: ChatSession) {
        switch action {
        case .signaling(.start):
            // Pairs are made only while the group is seated.
            pair.handleSignaling(.open(clientID: clientID), now: now)
        case .signaling(.send(.joinRoom(let roomId))):
            // The pair's two-member room: joined, and ready if its member is here.
            guard let member = members[id] else { return }
            pair.handleSignaling(.message(.roomJoined(roomId: roomId, userCount: member.present ? 2 : 1,
                                                      isInitiator: member.offers, ready: member.present)), now: now)
            if member.present {
                pair.handleSignaling(.message(.roomReady(roomId: roomId, userCount: 2, isInitiator: member.offers)), now: now)
            }
        case .signaling(.send(.relay(let type, let payload))):
            guard socketOpen else { return }   // as the pair's own socket would: lost while down
            actions.append(.signaling(.send(.relay(type: type, payload: payload.filter { $0.0 != "to" } + [("to", .string(id.rawValue))]))))
        case .signaling(.send):
            break
        case .signaling(.leave):
            pair.signalingLeft(now: now)   // the room is the group's; the pair only closed its connection
        case .signaling(.stop), .closeHTTP, .session, .enterGroup:
            break
        case .http:
            break   // a pair has its ICE servers from the group and never calls REST
        case .createPeer(let request, let isOfferer, let servers):
            let global = nextRequestID
            nextRequestID += 1
            peerRequests[global] = (id, request)
            actions.append(.createPeer(request: global, isOfferer: isOfferer, iceServers: servers))
        case .closePeer, .shutDownPeer, .transfer:
            actions.append(action)
        case .event(let event):
            memberEvent(event, of: id)
        case .finish:
            pairEnded(id)
        }
    }

    /// A pair's event, as the group shows it.
    private func memberEvent(_ event: ChatEvent, of id: MemberID) {
        guard let member = members[id] else { return }
        switch event {
        case .closed:
            break
        case .controlReady:
            members[id]?.pair?.sendControl(.name(ownName))
        case .control(.name(let name)):
            let taken = order.contains { $0 != id && members[$0]?.name == name } || name == ownName
            let shown = taken ? "\(name) (\(id.rawValue.prefix(4)))" : name
            if !name.isEmpty, shown != member.name {
                members[id]?.name = shown
                if member.named { emit(.progress("\(member.name) is now \(shown).")) }
            }
            showHeld(id)
        case .message(let text) where !member.named:
            members[id]?.held.append(text)
            if member.heldUntil == nil { members[id]?.heldUntil = now + Self.nameWait }
        case .peerJoined:
            emit(.member(id: id.rawValue, name: member.name, event: .peerJoined))
        case .peerAway:
            members[id]?.awayUntil = now + Self.awayGrace
            emit(.member(id: id.rawValue, name: member.name, event: event))
        case .peerBack, .connected, .reconnected:
            members[id]?.awayUntil = nil
            emit(.member(id: id.rawValue, name: member.name, event: event))
        case .undelivered(let lines), .peerCaughtUp(let lines):
            linesLost += lines
            emit(.member(id: id.rawValue, name: member.name, event: event))
        default:
            emit(.member(id: id.rawValue, name: member.name, event: event))
        }
    }

    /// A member away for `awayGrace`: its pair ends (what it never got is
    /// reported), and it is gone for the others as if it had left.
    func dropAway(_ id: MemberID) {
        guard let member = members[id], let pair = member.pair else { return }
        members[id]?.awayUntil = nil
        members[id]?.present = false
        emit(.member(id: id.rawValue, name: member.name, event: .peerLeft))
        emit(.progress("\(member.name) was away for \(Self.awayGrace.components.seconds) s and is no longer waited for."))
        pair.leaveNow(now: now)
    }

    /// The member's name came (or the wait for it ended): what it said meanwhile shows, with the name.
    func showHeld(_ id: MemberID) {
        guard let member = members[id] else { return }
        members[id]?.named = true
        members[id]?.held = []
        members[id]?.heldUntil = nil
        for text in member.held { emit(.member(id: id.rawValue, name: member.name, event: .message(text))) }
    }

    /// A pair is over: its member left, or the pair failed (that member
    /// only; the others go on).
    private func pairEnded(_ id: MemberID) {
        showHeld(id)
        members[id]?.pair = nil
    }

    /// Once the user's input ended and every pair has delivered and
    /// closed, the group leaves the room.
    private func leaveWhenPairsAreDone() {
        guard inputEnded, case .room = phase, pairs.allSatisfy(\.isFinished) else { return }
        leaveRoom(status: linesLost > 0 ? 1 : 0)
    }

    func leaveRoom(status: Int32) {
        guard case .room(let entry) = phase else { return }
        phase = .leaving(entry, status: status)
        // The user left: nothing to come back to (a saved session closes).
        actions.append(.session(.closed))
        if socketOpen {
            actions.append(.signaling(.leave))
        } else {
            finish(status)
        }
    }

    func fail(_ error: ClientError) {
        emit(.error(error))
        finish(1)
    }

    func finish(_ status: Int32) {
        if case .finished = phase { return }
        phase = .finished
        for pair in pairs where !pair.isFinished { pair.interrupt(status: status, now: now) }
        for id in order {
            guard let pair = members[id]?.pair else { continue }
            while let action = pair.pollAction() {
                if case .closePeer(let peer, _) = action { actions.append(.shutDownPeer(peer)) }
                if case .shutDownPeer = action { actions.append(action) }
            }
            members[id]?.pair = nil
        }
        rejoinAt = nil
        forcedExitAt = nil
        actions.append(.closeHTTP)
        actions.append(.signaling(.stop))
        emit(.closed)
        actions.append(.finish(status))
    }
}
