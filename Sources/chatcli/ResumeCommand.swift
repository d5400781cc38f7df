import ChatClient
import ChatRuntime
import DTLS
import Glibc
import PAKE
import SessionStore
import Signaling
import Terminal

/// `chatcli resume NAME`: continues a saved session with its own server,
/// code, room and device id. A pending session waits for the peer again; an
/// accepted one rejoins its room before it expires; a closed or expired one
/// is an error that says so.
enum ResumeCommand {
    static func run(_ args: ParsedArguments) -> Int32 {
        guard let iceServers = ICEServerOptions.entries(args) else { return 2 }
        do {
            let (mode, server, recorder, identity, secret, group) = try prepare(args)
            return ChatCommand.chat(mode: mode, server: server, printer: EventPrinter(jsonMode: args.has("json")),
                                    args: args, iceServers: iceServers, saving: .saved(recorder), identity: identity, secret: secret) { manager in
                manager.rejoinGroup = group
                manager.groupName = args.value("as")
            }
        } catch {
            Output.write("chatcli: \(error.message)\n", to: 2)
            return error.status
        }
    }

    static func prepare(_ args: ParsedArguments) throws(CommandFailure)
        -> (ChatManager.Mode, ServerURL, SessionRecorder, ChatCommand.ChatIdentity, CodeSecret?, GroupEntry?)
    {
        let name = args.positionals[0]
        guard let store = StoreAccess.defaultStore(), store.exists else { throw .store(.unknownSession(name)) }
        guard case .opened(let access, let contents) = try StoreAccess.open(args) else {
            throw .store(.passphraseUnavailable)
        }
        guard let record = contents.find(name: name) else { throw .store(.unknownSession(name)) }
        if let expires = record.expires, expires <= Int(time(nil)), record.status != .closed {
            // Expiry closes a session: record it, so `sessions` agrees.
            try? access.update { c throws(SessionStoreError) in try c.updateStatus(name: name, to: .closed) }
            throw CommandFailure(
                message: "session \"\(name)\" expired at \(Timestamp.local(expires)); start a new chat with 'chatcli create'",
                status: 1)
        }
        guard let server = ServerURL(record.serverURL), let deviceID = record.deviceIDs.last else {
            throw .store(.corrupted(reason: "session \"\(name)\" lacks its server or device id"))
        }
        let mode: ChatManager.Mode
        var secret: CodeSecret?
        switch (record.status, record.role, record.roomID) {
        case (.closed, _, _):
            throw CommandFailure(
                message: "session \"\(name)\" is closed (someone left, or it expired); start a new chat with 'chatcli create'",
                status: 1)
        case (.accepted, _, let roomID?):
            mode = .resumeRoom(roomID: roomID, deviceID: deviceID)
        case (.pending, .creator, _):
            // A waiting creator's code keeps its secret part until a peer joins.
            let code = PairingCode(userInput: record.code)
            mode = .resumeWaiting(code: code?.locator ?? record.code, deviceID: deviceID, expires: record.expires.map(Timestamp.iso8601))
            secret = code?.secret
        default:
            throw .store(.corrupted(reason: "session \"\(name)\" is \(record.status.rawValue) without a room id"))
        }
        // A group member comes back with a new certificate, which every other
        // member's pair then proves by the code again (nothing is pinned in a group).
        let identity = record.group != nil ? ChatCommand.ChatIdentity(certificate: nil, pinnedPeer: nil, pinsPeer: false)
            : try savedIdentity(record, acceptNewPeer: args.has("accept-new-peer"))
        // Refused at once while another chatcli has it open: both would
        // claim the same seat in the room.
        let lock: SessionLock
        do {
            lock = try access.store.lockSession(deviceID: record.deviceIDs.first ?? deviceID, name: name)
        } catch {
            throw .store(error)
        }
        let recorder = SessionRecorder(store: access.store, credential: access.credential, server: record.serverURL,
                                       queued: contents.pendingPurges, existingName: name, lock: lock)
        return (mode, server, recorder, identity, secret, try groupEntry(record))
    }

    /// A group member's seat, to go straight back into its room (nil for a two-person chat).
    static func groupEntry(_ record: SessionRecord) throws(CommandFailure) -> GroupEntry? {
        guard let group = record.group else { return nil }
        guard let roomID = record.roomID, let deviceID = record.deviceIDs.last, let member = MemberID(group.memberID),
              GroupSize.range.contains(group.max) else {
            throw .store(.corrupted(reason: "session \"\(record.name)\" is a group's without its room or seat"))
        }
        let code = PairingCode(userInput: record.code)
        return GroupEntry(roomID: roomID, seat: GroupSeat(memberID: member, max: group.max), deviceID: deviceID,
                          locator: code?.locator ?? String(record.code.prefix(6)), secret: code?.secret,
                          typedSecret: record.role == .joiner,
                          expires: record.expires.map(Timestamp.iso8601))
    }

    /// The session's own certificate, so the peer sees the same fingerprint,
    /// and the peer's pinned one (`--accept-new-peer`: pinned afresh).
    static func savedIdentity(_ record: SessionRecord, acceptNewPeer: Bool) throws(CommandFailure) -> ChatCommand.ChatIdentity {
        guard let saved = record.identity else {
            // Saved before identities were kept: a new certificate, nothing pinned.
            return ChatCommand.ChatIdentity(certificate: nil, pinnedPeer: nil, pinsPeer: false)
        }
        do {
            let certificate = try DTLSCertificate(der: saved.certificate, privateKeyDER: saved.privateKey)
            return ChatCommand.ChatIdentity(certificate: certificate, pinnedPeer: acceptNewPeer ? nil : record.peer)
        } catch {
            throw .store(.corrupted(reason: "session \"\(record.name)\" has an unreadable certificate (\(error))"))
        }
    }
}
