import ChatClient
import Glibc
import SessionStore
import Wire

/// `chatcli sessions` output: an aligned table for people (local times,
/// "expired" once past), or one JSON object per session with `--json`.
/// Device ids are never shown.
enum SessionTable {
    static let headers = ["NAME", "ROLE", "STATUS", "CODE", "SERVER", "CREATED", "EXPIRES"]

    static func isExpired(_ record: SessionRecord, now: Int) -> Bool {
        record.expires.map { $0 <= now } ?? false
    }

    static func text(_ sessions: [SessionRecord], now: Int = Int(time(nil))) -> String {
        guard !sessions.isEmpty else { return "No saved sessions.\n" }
        let rows = sessions.map { r -> [String] in
            let expires = r.expires.map { Timestamp.local($0) + (isExpired(r, now: now) ? " (expired)" : "") } ?? "unknown"
            return [r.name, r.role.rawValue, r.status.rawValue, r.code, r.serverURL, Timestamp.local(r.created), expires]
        }
        let widths = headers.indices.map { column in ([headers] + rows).map { $0[column].count }.max() ?? 0 }
        return ([headers] + rows).map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
            }.joined()
        }.joined(separator: "\n") + "\n"
    }

    static func json(_ sessions: [SessionRecord], now: Int = Int(time(nil))) -> String {
        sessions.map { r in
            JSON.object([
                "name": .string(r.name), "role": .string(r.role.rawValue), "status": .string(r.status.rawValue),
                "code": .string(r.code), "server": .string(r.serverURL), "roomid": r.roomID.map(JSON.string),
                "created": .string(Timestamp.iso8601(r.created)), "expires": r.expires.map { .string(Timestamp.iso8601($0)) },
                "expired": .bool(isExpired(r, now: now)),
            ]).serialized + "\n"
        }.joined()
    }
}
