import Redis
import Signaling
@testable import SignalingServer
import Testing
import TestSupport

/// Group rooms (WireProtocol §2b) in the cluster's Lua scripts: the same
/// rules as `RoomRegistry` and `SignalingHub` (RESTGroupTests, GroupHubTests).
extension ClusterScriptTests {
    static let groupRoom = String(repeating: "9c", count: 24)
    static let devices = ["alice-device", "bobby-device", "carol-device", "dave0-device"]
    static let memberIDs = ["00000000000000a1", "00000000000000b2", "00000000000000c3", "00000000000000d4"]

    /// A group room of `max` whose first `admitted` devices are members.
    func makeGroup(max: Int, admitted: Int) throws {
        let exp = t0 + 600_000
        let created = try run(ClusterScripts.create, at: 0, ["777777", Self.devices[0], String(exp), "100000", String(max), Self.memberIDs[0]])
        #expect(created == .array([.integer(exp), .bulk(Array(Self.memberIDs[0].utf8)), .integer(Int64(max))]))
        for n in 1..<admitted {
            let accepted = try run(ClusterScripts.accept, at: Int64(n), ["777777", Self.devices[n], "a", "10", "60000", Self.groupRoom, Self.memberIDs[n]])
            #expect(strings(accepted) == ["ok", Self.groupRoom, String(exp), String(max), Self.memberIDs[n]])
        }
        for instance in ["ia", "ib", "ic", "id"] { _ = try send(["SET", "t:inst:" + instance, "1", "PX", "600000"]) }
    }

    func joinGroup(_ n: Int, from member: String? = nil, at offset: Int64, sequence: Int = 1) throws {
        _ = try run(ClusterHubScripts.join, at: offset, [member ?? "i\(["a", "b", "c", "d"][n])/\(n)", String(sequence), Self.groupRoom, Self.devices[n]])
    }

    @Test func aGroupAdmitsUpToMaxOnceEachAndAnswersRetriesAsTheFirstTime() throws {
        try makeGroup(max: 3, admitted: 3)
        let exp = String(t0 + 600_000)
        #expect(strings(try run(ClusterScripts.accept, at: 10, ["777777", "erin0-device", "a", "10", "60000", "x", "00000000000000e5"])) == ["full"])
        // Bob's retry: the same member id, whatever id this instance drew.
        #expect(strings(try run(ClusterScripts.accept, at: 11, ["777777", Self.devices[1], "a", "10", "60000", "x", "00000000000000ff"]))
                == ["ok", Self.groupRoom, exp, "3", Self.memberIDs[1]])
        #expect(strings(try run(ClusterScripts.accept, at: 12, ["777777", Self.devices[0], "a", "10", "60000", "x", "00000000000000ff"])) == ["taken"])
        #expect(strings(try run(ClusterScripts.check, at: 13, ["777777", Self.devices[0]])) == ["accepted", Self.groupRoom])
        #expect(try run(ClusterScripts.create, at: 14, ["777777", Self.devices[0], exp, "100000", "3", "00000000000000ff"]).elements?[1].string == Self.memberIDs[0])
        #expect(try run(ClusterScripts.create, at: 15, ["777777", Self.devices[0], exp, "100000"]) == .integer(0), "a pair retry of a group")
        let lookup = try run(ClusterScripts.lookup, at: 16, [Self.groupRoom, Self.devices[2]]).elements ?? []
        #expect(lookup.count == 6 && lookup[3].string == "3" && lookup[4].string == "3" && lookup[5].integer == 1)
        #expect(try run(ClusterScripts.lookup, at: 16, [Self.groupRoom, "erin0-device"]).elements?[5].integer == 0)
        // Purge takes members out; the room ends with its last.
        #expect(try run(ClusterScripts.purge, at: 20, [Self.devices[1], Self.devices[2]]) == .array([.integer(0), .integer(0)]))
        #expect(try run(ClusterScripts.lookup, at: 21, [Self.groupRoom]).elements?[4].string == "1")
        #expect(try run(ClusterScripts.purge, at: 22, [Self.devices[0]]) == .array([.integer(1), .integer(0)]))
        #expect(try run(ClusterScripts.lookup, at: 23, [Self.groupRoom]).isNull)
    }

    @Test func groupMembersAcrossInstancesSeeEachOtherAndRelaysReachOnlyTheirTo() throws {
        try makeGroup(max: 4, admitted: 4)
        try joinGroup(0, at: 1)
        try joinGroup(2, at: 2)
        try joinGroup(1, at: 3)
        let joined = try #require(try inbox("ib").last)
        #expect(ClusterHub.message(joined["ev"] ?? "", joined)?.json.serialized
                == ServerMessage.groupJoined(GroupJoined(roomId: Self.groupRoom, memberId: MemberID(Self.memberIDs[1])!, max: 4, members: [
                    GroupPeer(memberId: MemberID(Self.memberIDs[0])!, isInitiator: false), GroupPeer(memberId: MemberID(Self.memberIDs[2])!, isInitiator: true),
                ])).json.serialized)
        #expect(try inbox("ia").map { "\($0["ev"] ?? "") \($0["mid"] ?? "") \($0["init"] ?? "")" }
                == ["gjoined 00000000000000a1 ", "mjoined 00000000000000c3 1", "mjoined 00000000000000b2 1"])
        #expect(try inbox("ic").last.map { "\($0["ev"] ?? "") \($0["init"] ?? "") \($0["n"] ?? "")" } == "mjoined 0 3")
        // Bob to Carol, whatever `from` he claims: from his member id, to Carol only.
        _ = try run(ClusterHubScripts.relay, at: 4, ["ib/1", "2", "webrtc_offer", "cafe", #"{"sdp":"v=0","from":"00000000000000a1"}"#, Self.memberIDs[2]])
        let relayed = try #require(try inbox("ic").last)
        #expect(relayed["ev"] == "relay" && relayed["from"] == Self.memberIDs[1])
        #expect(ClusterHub.message("relay", relayed)?.json["from"]?.stringValue == Self.memberIDs[1])
        #expect(try inbox("ia").last?["ev"] == "mjoined", "Alice got nothing")
        let refused = [("", "missing_to"), ("0123456789abcdef", "unknown_member"), (Self.memberIDs[1], "unknown_member"), (Self.memberIDs[3], "no_peer")]
        for (n, (to, code)) in refused.enumerated() {
            _ = try run(ClusterHubScripts.relay, at: 5, ["ib/1", "\(3 + n)", "chat_x", "cafe", "{}", to])
            let got = try inbox("ib").last; #expect(got?["code"] == code, "\(to) \(String(describing: got))")
        }
    }

    @Test func aGroupGoesOnWhenMembersLeaveAndEndsWhenAllHaveLeft() throws {
        try makeGroup(max: 3, admitted: 3)
        for n in 0..<3 { try joinGroup(n, at: Int64(n + 1)) }
        _ = try run(ClusterHubScripts.leave, at: 5, ["ia/0", "2"])
        #expect(try inbox("ib").last.map { "\($0["ev"] ?? "") \($0["mid"] ?? "") \($0["reason"] ?? "") \($0["n"] ?? "")" } == "mleft 00000000000000a1 left 2")
        _ = try run(ClusterHubScripts.disconnect, at: 6, ["ic/2", "2"])
        #expect(try inbox("ib").last.map { "\($0["reason"] ?? "") \($0["n"] ?? "")" } == "disconnected 1")
        // Bob's seat is held by his live socket: a second one is refused and the holder probed.
        try joinGroup(1, from: "id/9", at: 7)
        #expect(try inbox("id").last?["ev"] == "full" && inbox("ib").last?["ev"] == "probe")
        // Bob leaves too: Carol only dropped, so the room lives on for her.
        _ = try run(ClusterHubScripts.leave, at: 8, ["ib/1", "2"])
        #expect(!(try run(ClusterScripts.lookup, at: 9, [Self.groupRoom]).isNull))
        for n in 0..<3 { try joinGroup(n, at: Int64(10 + n), sequence: 3) }
        for n in 0..<3 { _ = try run(ClusterHubScripts.leave, at: Int64(20 + n), ["i\(["a", "b", "c"][n])/\(n)", "4"]) }
        #expect(try run(ClusterScripts.lookup, at: 30, [Self.groupRoom]).isNull)
        #expect(strings(try run(ClusterScripts.accept, at: 31, ["777777", "dave0-device", "b", "10", "60000", "x", "00000000000000d4"])) == ["notfound"])
    }

    @Test func aGroupSeatOfADeadInstanceIsFreedForItsMember() throws {
        try makeGroup(max: 3, admitted: 2)
        try joinGroup(0, at: 1)
        try joinGroup(1, at: 2)
        _ = try send(["DEL", "t:inst:ia"])
        try joinGroup(0, from: "ic/5", at: 3)
        #expect(try inbox("ib").suffix(2).map { "\($0["ev"] ?? "") \($0["reason"] ?? "")" } == ["mleft disconnected", "mjoined "])
        #expect(try inbox("ic").last?["ev"] == "gjoined")
        _ = try run(ClusterHubScripts.join, at: 4, ["ic/6", "1", Self.groupRoom])
        #expect(try inbox("ic").last?["code"] == "not_a_member", "no device id")
    }
}
