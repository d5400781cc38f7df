import HTTP1
import Signaling
import Wire

/// Parsing request bodies into typed values, with the error codes and the
/// precedence of WireProtocol §1: every `missing_*` check (absent, `null` or
/// `""`) comes before every `invalid_*` check, each in the table's order.
enum RESTFields {
    /// The body as a JSON object, else `400 invalid_json` (an empty body included).
    static func object(_ body: [UInt8]) throws(RESTError) -> JSON {
        guard let json = try? JSON.parse(body), json.isObject else { throw .invalidJSON }
        return json
    }

    static func isMissing(_ value: JSON?) -> Bool {
        switch value {
        case .none, .some(.null), .some(.string("")): return true
        default: return false
        }
    }

    /// Throws `missing_<name>` for the first absent field, in order.
    static func requirePresent(_ body: JSON, _ names: String...) throws(RESTError) {
        for name in names where isMissing(body[name]) { throw RESTError(400, "missing_\(name)") }
    }

    /// A string of exactly 6 ASCII digits; a JSON number is not one.
    static func joinCode(_ body: JSON) throws(RESTError) -> JoinCode {
        guard let code = body["joinid"]?.stringValue.flatMap({ JoinCode($0) }) else { throw RESTError(400, "invalid_joinid") }
        return code
    }

    static func deviceID(_ body: JSON, _ name: String) throws(RESTError) -> DeviceID {
        guard let id = body[name]?.stringValue.flatMap(DeviceID.init) else { throw RESTError(400, "invalid_\(name)") }
        return id
    }

    static let expiryRange: ClosedRange<Int64> = 60...86_400

    static func expiresInSeconds(_ body: JSON) throws(RESTError) -> Int64 {
        guard let seconds = body["expiresInSeconds"]?.intValue.map(Int64.init), expiryRange.contains(seconds) else {
            throw RESTError(400, "invalid_expiresInSeconds")
        }
        return seconds
    }

    /// The size of a group room asked for: nil for a two-member room
    /// (`group` absent, null or false). `group` must be a boolean
    /// (`invalid_group`); `max` an integer in 3…8, 8 when absent, and only
    /// with `"group":true` (`invalid_max`), so a request for a size is never
    /// silently answered with a pair.
    static func groupMax(_ body: JSON) throws(RESTError) -> Int? {
        let group: Bool
        switch body["group"] {
        case .none, .some(.null): group = false
        case .some(.bool(let value)): group = value
        default: throw RESTError(400, "invalid_group")
        }
        let max = body["max"].flatMap { $0.isNull ? nil : $0 }
        guard group else {
            if max != nil { throw RESTError(400, "invalid_max") }
            return nil
        }
        guard let max else { return GroupSize.defaultMax }
        guard let size = max.intValue, GroupSize.range.contains(size) else { throw RESTError(400, "invalid_max") }
        return size
    }

    static let deviceIDCounts = 1...100

    /// An array of 1…100 valid ids; anything else (absent included) is
    /// `invalid_deviceIds`, which wins over `missing_*`.
    static func deviceIDs(_ body: JSON) throws(RESTError) -> [DeviceID] {
        guard let items = body["deviceIds"]?.arrayValue, deviceIDCounts.contains(items.count) else {
            throw RESTError(400, "invalid_deviceIds")
        }
        var ids: [DeviceID] = []
        ids.reserveCapacity(items.count)
        for item in items {
            guard let id = item.stringValue.flatMap(DeviceID.init) else { throw RESTError(400, "invalid_deviceIds") }
            ids.append(id)
        }
        return ids
    }

    /// `roomid` in a body (`DELETE`): missing → 400, malformed → 404 like an unknown id.
    static func roomID(_ value: JSON?) throws(RESTError) -> RoomID {
        if isMissing(value) { throw RESTError(400, "missing_roomid") }
        guard let id = value?.stringValue.flatMap(RoomID.init) else { throw .notFound }
        return id
    }
}
