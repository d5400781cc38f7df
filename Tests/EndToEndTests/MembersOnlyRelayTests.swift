import Foundation
import Testing
import TestSupport

/// `chatcli serve --turn-members-only` with a real coturn: TURN credentials
/// go only to room members who name their room, and the peers still relay.
@Suite(.ownThread, .serialized, .enabled(if: Coturn.isInstalled, "coturn's turnserver is not installed (apt install coturn; Tools/test installs it): members-only TURN tests skipped"))
struct MembersOnlyRelayTests {
    static func server(_ coturn: Coturn) throws -> ServerProcess {
        try ServerProcess(arguments: ["--turn-url", "turn:127.0.0.1:\(coturn.port)?transport=udp", "--turn-members-only"],
                          environment: ["CHATCLI_TURN_SECRET": coturn.secret])
    }

    @Test func relayOnlyPeersChatThroughTheRelayWithMemberCredentials() throws {
        let coturn = try Coturn(verbose: true)
        defer { coturn.stop() }
        let server = try Self.server(coturn)
        // Anyone who names no room gets STUN alone, still a 200 (WireProtocol §1 shape).
        let anonymous = REST.request("GET", port: server.port, "/api/ice-servers")
        #expect(anonymous.status == 200)
        #expect(anonymous.body.contains(#""turnMembersOnly":true"#) && !anonymous.body.contains("username"), "\(anonymous.body)")

        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--relay-only", "--json"], name: "alice")
        let code = try #require(alice.waitForEvent("code"), "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", try #require(code["code"] as? String), "--server", server.url, "--relay-only", "--json"], name: "bob")
        let fromAlice = ChatTests.messages("a", sizes: [16, 1200, 70_000]), fromBob = ChatTests.messages("b", sizes: [16, 1200])
        _ = try RelayTests.connectThroughTheRelay(alice, bob, coturn, fromAlice: fromAlice, fromBob: fromBob)
        ChatTests().expectExchangeAndLeave(alice, bob, fromAlice: fromAlice, fromBob: fromBob)

        // coturn saw two members, each under its own keyed id, with
        // credentials that end when the room does.
        let users = Self.turnUsers(coturn.log)
        #expect(users.count == 2, "\(users)\n\(coturn.logTail)")
        let roomExpiry = try #require((code["expires"] as? String).flatMap(Self.unixSeconds), "\(code)")
        for user in users {
            let parts = user.split(separator: ":")
            #expect(parts.count == 2 && Int64(parts[0]) == roomExpiry, "\(user) vs room expiry \(roomExpiry)")
            #expect(parts.last?.count == 16 && parts.last?.allSatisfy(\.isHexDigit) == true, "\(user)")
        }
    }

    @Test func doctorSaysTURNIsForRoomMembersRatherThanFailing() throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let server = try Self.server(coturn)
        let report = try DoctorTURNTests.doctor(server)
        #expect((report["turn"] as? [Any])?.isEmpty == true, "\(report)")
        #expect(report["turn_members_only"] as? Bool == true, "\(report)")

        let text = try ChildProcess.chatcli(["doctor", "--server", server.url], name: "doctor")
        let line = text.waitForLine(timeout: 30) { $0.hasPrefix("TURN:") }
        #expect(line?.contains("only to members of a room") == true, "\(text.transcript)")
        #expect(text.waitForExit() == 0)
    }

    /// The distinct TURN usernames in coturn's log (`user <NAME>`).
    static func turnUsers(_ log: String) -> Set<String> {
        var users = Set<String>()
        var rest = Substring(log)
        while let start = rest.range(of: "user <") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: ">") else { break }
            if !rest[..<end].isEmpty { users.insert(String(rest[..<end])) }
            rest = rest[end...]
        }
        return users
    }

    /// Whole seconds of an ISO 8601 time with milliseconds, rounded down.
    static func unixSeconds(_ iso: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: iso).map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }
}
