import Signaling

/// Identifies one parked long poll (`POST /api/rooms/check?wait=S`).
public struct LongPollToken: Hashable, Sendable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
}

/// Parked long polls by join code, and the answers waiting to be collected.
struct LongPollWaiters {
    private var nextToken: UInt64 = 1
    private var byCode: [JoinCode: [LongPollToken]] = [:]
    private var parked: [LongPollToken: (JoinCode, DeviceID)] = [:]
    private var woken: [(LongPollToken, RoomRegistry.CheckOutcome)] = []

    var count: Int { parked.count }

    mutating func park(_ code: JoinCode, client1: DeviceID) -> LongPollToken {
        let token = LongPollToken(rawValue: nextToken)
        nextToken &+= 1
        parked[token] = (code, client1)
        byCode[code, default: []].append(token)
        return token
    }

    mutating func unpark(_ token: LongPollToken) -> (JoinCode, DeviceID)? {
        guard let entry = parked.removeValue(forKey: token) else { return nil }
        byCode[entry.0]?.removeAll { $0 == token }
        if byCode[entry.0]?.isEmpty == true { byCode[entry.0] = nil }
        return entry
    }

    /// Answers every poll parked on this code.
    mutating func wake(_ code: JoinCode, with outcome: RoomRegistry.CheckOutcome) {
        guard let tokens = byCode.removeValue(forKey: code) else { return }
        for token in tokens where parked.removeValue(forKey: token) != nil {
            woken.append((token, outcome))
        }
    }

    mutating func drain() -> [(LongPollToken, RoomRegistry.CheckOutcome)] {
        defer { woken.removeAll() }
        return woken
    }
}
