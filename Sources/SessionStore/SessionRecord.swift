import Wire

/// One saved chat session: enough to resume it, never its messages.
public struct SessionRecord: Equatable, Sendable {
    public enum Role: String, Sendable, CaseIterable { case creator, joiner }
    /// Inviso's lifecycle: a created room waits (`pending`) until a peer
    /// accepts the code (`accepted`); leaving or expiry closes it (`closed`).
    public enum Status: String, Sendable, CaseIterable { case pending, accepted, closed }

    /// Unique, user-visible name.
    public var name: String
    public var serverURL: String
    /// The 6-digit join code.
    public var code: String
    /// Known once the room is accepted.
    public var roomID: String?
    public var role: Role
    public var status: Status
    /// UNIX seconds.
    public var created: Int
    /// UNIX seconds (the server's `exp`); nil when unknown (a joiner is never told).
    public var expires: Int?
    /// The session's ephemeral device ids, newest last (never reused).
    public var deviceIDs: [String]
    /// The session's own DTLS identity, presented again by `resume` so the
    /// peer sees the same fingerprint; nil in sessions saved before identities were kept.
    public var identity: Identity?
    /// The peer's certificate, pinned at the first connection (trust on first use).
    public var peer: PinnedPeer?
    /// A group room's seat (its `code` then keeps the secret words: a member
    /// back after a crash proves them again to every other member).
    public var group: Group?

    public struct Group: Equatable, Sendable {
        /// 16 lowercase hex characters, as the server drew it.
        public var memberID: String
        public var max: Int
        public init(memberID: String, max: Int) {
            self.memberID = memberID
            self.max = max
        }
    }

    /// A DTLS certificate and its private key, both DER (sealed with the rest of the store).
    public struct Identity: Equatable, Sendable {
        public var certificate: [UInt8]
        public var privateKey: [UInt8]
        public init(certificate: [UInt8], privateKey: [UInt8]) {
            self.certificate = certificate
            self.privateKey = privateKey
        }
    }

    /// The peer's SHA-256 certificate fingerprint, whether the code proved
    /// it, and whether the user compared the safety words and marked them
    /// verified (`/verify ok`) while the peer showed it.
    public struct PinnedPeer: Equatable, Sendable {
        public var fingerprint: [UInt8]
        public var provenByCode: Bool
        public var verifiedByWords: Bool
        public init(fingerprint: [UInt8], provenByCode: Bool, verifiedByWords: Bool = false) {
            self.fingerprint = fingerprint
            self.provenByCode = provenByCode
            self.verifiedByWords = verifiedByWords
        }
    }

    public init(
        name: String, serverURL: String, code: String, roomID: String? = nil, role: Role,
        status: Status = .pending, created: Int, expires: Int?, deviceIDs: [String],
        identity: Identity? = nil, peer: PinnedPeer? = nil, group: Group? = nil
    ) {
        self.group = group
        self.identity = identity
        self.peer = peer
        self.name = name
        self.serverURL = serverURL
        self.code = code
        self.roomID = roomID
        self.role = role
        self.status = status
        self.created = created
        self.expires = expires
        self.deviceIDs = deviceIDs
    }

    var json: JSON {
        .object([
            "name": .string(name), "server": .string(serverURL), "code": .string(code),
            "roomid": roomID.map(JSON.string), "role": .string(role.rawValue),
            "status": .string(status.rawValue), "created": JSON(created), "expires": expires.map { JSON($0) },
            "deviceIds": .array(deviceIDs.map(JSON.string)),
            "identity": identity.map { .object(["certificate": .string(Base64.encode($0.certificate)),
                                               "privateKey": .string(Base64.encode($0.privateKey))]) },
            "peer": peer.map { .object(["fingerprint": .string(Base64.encode($0.fingerprint)), "provenByCode": .bool($0.provenByCode),
                                        "verifiedByWords": .bool($0.verifiedByWords)]) },
            "group": group.map { .object(["memberId": .string($0.memberID), "max": JSON($0.max)]) },
        ])
    }

    init?(json: JSON) {
        guard let name = json["name"]?.stringValue, let server = json["server"]?.stringValue,
            let code = json["code"]?.stringValue,
            let role = json["role"]?.stringValue.flatMap(Role.init(rawValue:)),
            let status = json["status"]?.stringValue.flatMap(Status.init(rawValue:)),
            let created = json["created"]?.intValue,
            let ids = json["deviceIds"]?.arrayValue
        else { return nil }
        var deviceIDs: [String] = []
        for id in ids {
            guard let s = id.stringValue else { return nil }
            deviceIDs.append(s)
        }
        let expires: Int?
        switch json["expires"] {
        case nil, .null?: expires = nil
        case let value?:
            guard let seconds = value.intValue else { return nil }
            expires = seconds
        }
        let roomID: String?
        switch json["roomid"] {
        case nil, .null?: roomID = nil
        case .string(let r)?: roomID = r
        default: return nil
        }
        var identity: Identity?
        if let saved = json["identity"], saved != .null {
            guard let cert = saved["certificate"]?.stringValue.flatMap(Base64.decode),
                  let key = saved["privateKey"]?.stringValue.flatMap(Base64.decode) else { return nil }
            identity = Identity(certificate: cert, privateKey: key)
        }
        var peer: PinnedPeer?
        if let pinned = json["peer"], pinned != .null {
            guard let fingerprint = pinned["fingerprint"]?.stringValue.flatMap(Base64.decode), fingerprint.count == 32,
                  case .bool(let proven)? = pinned["provenByCode"] else { return nil }
            // Absent in pins saved before `/verify ok` was kept.
            let words: Bool
            switch pinned["verifiedByWords"] {
            case nil: words = false
            case .bool(let verified)?: words = verified
            default: return nil
            }
            peer = PinnedPeer(fingerprint: fingerprint, provenByCode: proven, verifiedByWords: words)
        }
        var group: Group?
        if let seat = json["group"], seat != .null {
            guard let member = seat["memberId"]?.stringValue, let max = seat["max"]?.intValue else { return nil }
            group = Group(memberID: member, max: max)
        }
        self.init(
            name: name, serverURL: server, code: code, roomID: roomID, role: role, status: status,
            created: created, expires: expires, deviceIDs: deviceIDs, identity: identity, peer: peer, group: group)
    }
}
