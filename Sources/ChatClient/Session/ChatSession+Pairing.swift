import HTTP1
import Signaling

/// REST pairing (create, accept, check, resume) and the ICE servers, with
/// the retries that ride out a restarting server: transient 5xx a few
/// times, an unreachable server for up to two minutes while waiting.
extension ChatSession {
    enum Request {
        case create(code: String, attemptsLeft: Int)
        case accept(code: String)
        case check(code: String, longPoll: Bool, started: Duration)
        case iceServers
    }

    /// What a pending retry will do.
    enum Retry: Equatable {
        case create(attemptsLeft: Int)
        case check(code: String, longPoll: Bool)
        case joinRoom(roomID: String)
    }

    public func start(now: Duration) {
        advance(now)
        switch mode {
        case .create(let expiresIn): createRoom(expiresIn: expiresIn, attemptsLeft: 20)
        case .join(let code):
            prepareCodeSecret(locator: code)
            accept(code)
        case .resumeWaiting(let code, _, let expires):
            prepareCodeSecret(locator: code)
            emit(.code(displayCode(code), expires: expires, server: options.inviteServer))
            self.expires = expires
            showNotice()
            emit(.waiting)
            state = .waitingForPeer(code: code)
            check(code: code, longPoll: true)
        case .resumeRoom(let roomID, _):
            if let locator = options.codeLocator, options.codeSecret != nil { prepareCodeSecret(locator: locator) }
            showNotice()
            emit(.progress("Rejoining the room…"))
            joinRoom(roomID)
        case .groupPair(let roomID, let servers, _):
            if let locator = options.codeLocator { prepareCodeSecret(locator: locator) }
            state = .joiningRoom(roomID: roomID)
            iceServers = servers
            actions.append(.signaling(.start))
        }
    }

    func request(_ purpose: Request, _ http: HTTPRequest, timeout: Duration = .seconds(15)) {
        let id = nextRequestID
        nextRequestID += 1
        requests[id] = purpose
        actions.append(.http(id: id, http, timeout: timeout))
    }

    /// The answer (or failure) of the request `id`.
    public func handleReply(_ id: Int, _ result: Result<HTTPResponse, ClientError>, now: Duration) {
        advance(now)
        guard let purpose = requests.removeValue(forKey: id) else { return }
        switch purpose {
        case .create(let code, let attemptsLeft): created(code, attemptsLeft: attemptsLeft, result)
        case .accept(let code): accepted(code, result)
        case .check(let code, let longPoll, let started): checked(code, longPoll: longPoll, started: started, result)
        case .iceServers: iceServersArrived(try? result.get())
        }
        afterInput()
    }

    // MARK: Create

    func createRoom(expiresIn: Int, attemptsLeft: Int) {
        let code = JoinCode.random(using: &rng).rawValue
        request(.create(code: code, attemptsLeft: attemptsLeft),
                RoomAPI.createRequest(code: code, deviceID: deviceID, expiresIn: expiresIn, authority: options.authority,
                                      groupMax: options.groupMax))
    }

    private func created(_ code: String, attemptsLeft: Int, _ result: Result<HTTPResponse, ClientError>) {
        guard state == .pairing, case .create(let expiresIn) = mode else { return }
        let response: HTTPResponse
        switch result {
        case .failure(let error): fail(error); return
        case .success(let r): response = r
        }
        if RoomAPI.isTransient(response), retryTransient(.create(attemptsLeft: attemptsLeft)) { return }
        switch RoomAPI.interpretCreate(response) {
        case .created(let expires):
            self.expires = expires
            if options.groupMax != nil {
                guard let seat = RoomAPI.groupSeat(response) else {
                    fail(.noGroupRooms)
                    return
                }
                groupSeat = seat
            }
            prepareCodeSecret(locator: code)
            emit(.code(displayCode(code), expires: expires, server: options.inviteServer))
            // The secret is saved only while the room waits (a resumed creator shows the same code).
            if groupSeat == nil { actions.append(.session(.pending(code: displayCode(code), deviceID: deviceID, expires: expires))) }
            showNotice()
            emit(.waiting)
            state = .waitingForPeer(code: code)
            check(code: code, longPoll: true)
        case .codeInUse where attemptsLeft > 1:
            createRoom(expiresIn: expiresIn, attemptsLeft: attemptsLeft - 1)
        case .codeInUse:
            fail(.server(status: 409, code: "joinid_in_use", action: "find a free code"))
        case .failed(let error):
            fail(error)
        }
    }

    // MARK: Check (the creator waits)

    /// Long polls where the server supports `?wait`, otherwise (an immediate
    /// 204, as Inviso answers) polls every 2 s.
    func check(code: String, longPoll: Bool) {
        request(.check(code: code, longPoll: longPoll, started: now),
                RoomAPI.checkRequest(code: code, deviceID: deviceID, wait: longPoll ? 25 : nil, authority: options.authority),
                timeout: .seconds(40))
    }

    private func checked(_ code: String, longPoll: Bool, started: Duration, _ result: Result<HTTPResponse, ClientError>) {
        guard case .waitingForPeer = state else { return }
        let response: HTTPResponse
        switch result {
        case .failure(let error):
            // A restarting server keeps its rooms: ride out the outage.
            if !retryOutage(error, .check(code: code, longPoll: longPoll)) { fail(error) }
            return
        case .success(let r): response = r
        }
        outageSince = nil
        retries.reset()
        if RoomAPI.isTransient(response), retryTransient(.check(code: code, longPoll: longPoll)) { return }
        transientFailures = 0
        switch RoomAPI.interpretCheck(response) {
        case .accepted(let roomID):
            if let groupSeat { return enterGroup(roomID: roomID, seat: groupSeat, locator: code) }
            actions.append(.session(.accepted(roomID: roomID)))
            joinRoom(roomID)
        case .pending:
            let answeredAtOnce = now - started < .seconds(1)
            if longPoll && !answeredAtOnce {
                check(code: code, longPoll: true)
            } else {
                schedule(.check(code: code, longPoll: longPoll && !answeredAtOnce), after: .seconds(2))
            }
        case .failed(let error):
            fail(error)
        }
    }

    // MARK: Accept (the joiner)

    func accept(_ code: String) {
        request(.accept(code: code), RoomAPI.acceptRequest(code: code, deviceID: deviceID, authority: options.authority))
    }

    private func accepted(_ code: String, _ result: Result<HTTPResponse, ClientError>) {
        guard state == .pairing else { return }
        switch result {
        case .failure(let error): fail(error)
        case .success(let response):
            // Never repeat an accept (Inviso overwrites the pairing on a second one).
            switch RoomAPI.interpretAccept(response) {
            case .accepted(let roomID):
                if let seat = RoomAPI.groupSeat(response) {
                    expires = RoomAPI.acceptExpiry(response)
                    return enterGroup(roomID: roomID, seat: seat, locator: code)
                }
                actions.append(.session(.joined(code: code, roomID: roomID, deviceID: deviceID, expires: RoomAPI.acceptExpiry(response))))
                showNotice()
                joinRoom(roomID)
            case .failed(let error): fail(error)
            }
        }
    }

    // MARK: Retries

    func schedule(_ retry: Retry, after delay: Duration) {
        pendingRetry = retry
        timers.set(.retry, at: now + delay)
    }

    func runRetry() {
        guard let retry = pendingRetry else { return }
        pendingRetry = nil
        switch retry {
        case .create(let attemptsLeft):
            guard state == .pairing, case .create(let expiresIn) = mode else { return }
            createRoom(expiresIn: expiresIn, attemptsLeft: attemptsLeft)
        case .check(let code, let longPoll):
            guard case .waitingForPeer = state else { return }
            check(code: code, longPoll: longPoll)
        case .joinRoom(let roomID):
            guard currentRoomID == roomID else { return }
            actions.append(.signaling(.send(.joinRoom(roomId: roomID))))
        }
    }

    /// Retries while the server is unreachable, for up to two minutes; false once it should give up.
    private func retryOutage(_ error: ClientError, _ retry: Retry) -> Bool {
        switch error {
        case .unreachable, .connectionLost, .timeout: break
        default: return false
        }
        if outageSince == nil {
            outageSince = now
            emit(.progress("Lost the server (\(error.message)); retrying."))
        }
        guard let since = outageSince, now - since < .seconds(120) else { return false }
        schedule(retry, after: retries.next(using: &rng))
        return true
    }

    /// Retries a 5xx a few times with backoff; false once it should give up.
    private func retryTransient(_ retry: Retry) -> Bool {
        transientFailures += 1
        guard transientFailures <= 5 else { return false }
        schedule(retry, after: retries.next(using: &rng))
        return true
    }

    func showNotice() {
        if let notice = options.notice { emit(.notice(notice)) }
        options.notice = nil
    }

    // MARK: ICE servers

    /// Asks for the ICE servers once the room is known, naming it so the
    /// TURN credentials are this member's (see `RoomAPI.iceServersRequest`).
    func fetchICEServers() {
        request(.iceServers, RoomAPI.iceServersRequest(authority: options.authority, roomID: currentRoomID, deviceID: deviceID),
                timeout: .seconds(5))
    }

    private func iceServersArrived(_ response: HTTPResponse?) {
        guard case .joiningRoom = state else { return }
        var offered = response.map(RoomAPI.iceServers) ?? []
        // Without any STUN server, ask the signaling host's port 3478 (as against Inviso).
        let extraSTUN = options.extraICEServers.flatMap(\.urls).contains { ICEServerURL($0)?.isSTUN == true }
        if offered.isEmpty && !extraSTUN && options.fallbackSTUN { offered = [ICEServerEntry(urls: ["stun:\(options.host):3478"])] }
        iceServers = options.extraICEServers + offered
        let hasTURN = iceServers.contains { entry in
            entry.username != nil && entry.credential != nil && entry.urls.contains { ICEServerURL($0)?.isSupportedTURN == true }
        }
        if options.relayOnly && !hasTURN {
            fail(.noTURN(RoomAPI.noTURNReason(response)))
            return
        }
        actions.append(.closeHTTP)
        actions.append(.signaling(.start))
    }
}

extension ChatSession {
    /// The code was a group room's: hand the room to the group (which runs
    /// one pairwise session per member) and end here without a word.
    func enterGroup(roomID: String, seat: GroupSeat, locator: String) {
        let entry = GroupEntry(roomID: roomID, seat: seat, deviceID: deviceID, locator: locator,
                               secret: codeAuth.secret, typedSecret: codeAuth.typedSecret, expires: expires)
        state = .finished
        timers.cancelAll()
        actions.append(.enterGroup(entry))
    }
}
