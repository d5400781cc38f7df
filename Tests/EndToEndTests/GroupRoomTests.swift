import Foundation
import TestSupport
import Testing

/// Group rooms through the real `chatcli serve` (issue 31, WireProtocol §2b),
/// with raw HTTP and WebSocket clients standing in for four members: each
/// from its own loopback address (its own client for the server's limits).
@Suite(.ownThread) struct GroupRoomTests {
    @Test func fourMembersMeshThroughOneRoomAndTheFifthFindsItFull() throws {
        let server = try ServerProcess()
        try Self.mesh(ports: [server.port]) { server.process.transcript }
    }

    /// The same through two `serve --redis` instances: member n talks to
    /// instance n mod 2, REST calls alternate too.
    @Test(.enabled(if: RedisProcess.isInstalled)) func membersOnDifferentClusterInstancesMeshThroughOneRoom() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false)
        try Self.mesh(ports: cluster.instances.map(\.port)) { cluster.transcripts }
    }

    static func mesh(ports: [UInt16], transcript: () -> String) throws {
        let port = { (n: Int) in ports[n % ports.count] }
        let devices = ["alice-device", "bob-device", "carol-device", "dave-device"]
        let created = HTTPExchange.send("POST", port: port(0), "/api/rooms",
                                        ["joinid": "314159", "expiresInSeconds": 600, "client1": devices[0], "group": true, "max": 4])
        #expect(created.status == 201 && created.body["group"] as? Bool == true, "\(created.head)\n\(created.bodyText)")
        var ids = [try #require(created.body["memberId"] as? String)]
        var roomID = ""
        for (n, device) in devices.enumerated().dropFirst() {
            let accepted = HTTPExchange.send("POST", port: port(n), "/api/rooms/accept", ["joinid": "314159", "client2": device], source: "127.0.0.\(n + 1)")
            #expect(accepted.status == 200 && accepted.body["max"] as? Int == 4, "\(accepted.bodyText)")
            ids.append(try #require(accepted.body["memberId"] as? String))
            roomID = try #require(accepted.body["roomid"] as? String)
        }
        let fifth = HTTPExchange.send("POST", port: port(1), "/api/rooms/accept", ["joinid": "314159", "client2": "erin-device"], source: "127.0.0.5")
        #expect(fifth.status == 409 && fifth.body["error"] as? String == "room_full")

        var members: [Member] = []
        for (n, device) in devices.enumerated() {
            let member = try #require(Member(port: port(n), source: "127.0.0.\(n + 1)"))
            member.send(#"{"type":"join_room","roomId":"\#(roomID)","deviceId":"\#(device)"}"#)
            let joined = try #require(member.next("room_joined"), "\(transcript())")
            #expect(joined["memberId"] as? String == ids[n])
            #expect((joined["members"] as? [[String: Any]])?.compactMap { $0["memberId"] as? String } == Array(ids[..<n]), "who is already there")
            for earlier in members {
                let announced = try #require(earlier.next("member_joined"))
                #expect(announced["memberId"] as? String == ids[n] && announced["isInitiator"] as? Bool == true, "the earlier member offers")
            }
            members.append(member)
        }

        // Bob offers to Dave, claiming to be Carol: Dave hears it from Bob, and only Dave.
        members[1].send(#"{"type":"webrtc_offer","to":"\#(ids[3])","from":"\#(ids[2])","sdp":"v=0"}"#)
        let offer = try #require(members[3].next("webrtc_offer"))
        #expect(offer["from"] as? String == ids[1] && offer["to"] as? String == ids[3] && offer["roomId"] as? String == roomID)
        for n in [0, 2] {
            members[n].send(#"{"type":"ping"}"#)
            #expect(members[n].next("pong") != nil)
            #expect(!members[n].seen.contains { $0["type"] as? String == "webrtc_offer" }, "member \(n) got someone else's offer")
        }
        members[0].send(#"{"type":"chat_hello","to":"0123456789abcdef"}"#)
        #expect(members[0].next("error")?["error"] as? String == "unknown_member")

        // The creator leaves and Dave's socket drops: the room goes on for Bob and Carol.
        members[0].send(#"{"type":"leave_room"}"#)
        members[3].close()
        for n in [1, 2] {
            // Through two instances the two may come in either order.
            let gone = [members[n].next("member_left"), members[n].next("member_left")].map { "\($0?["memberId"] ?? "") \($0?["reason"] ?? "")" }
            #expect(Set(gone) == ["\(ids[0]) left", "\(ids[3]) disconnected"])
        }
        #expect(HTTPExchange.send("GET", port: port(0), "/api/rooms?roomid=\(roomID)").status == 200)
        let dave = try #require(Member(port: port(2), source: "127.0.0.4"))
        dave.send(#"{"type":"join_room","roomId":"\#(roomID)","deviceId":"\#(devices[3])"}"#)
        #expect((dave.next("room_joined")?["members"] as? [[String: Any]])?.count == 2, "Dave is back with Bob and Carol")

        // Everyone leaves: the room ends.
        for member in [members[1], members[2], dave] { member.send(#"{"type":"leave_room"}"#) }
        #expect(dave.next("left_room") != nil && members[2].next("left_room") != nil && members[1].next("left_room") != nil)
        #expect(HTTPExchange.send("GET", port: port(1), "/api/rooms?roomid=\(roomID)").status == 404, "\(transcript())")
    }
}

/// One member's WebSocket: frames read into a queue, taken by type.
private final class Member {
    private let client: RawClient
    private var buffer: [UInt8] = []
    private var queue: [[String: Any]] = []
    /// Every frame read so far.
    private(set) var seen: [[String: Any]] = []

    init?(port: UInt16, source: String) {
        guard let client = RawClient(port: port, source: source), client.upgradeToWebSocket(port: port) else { return nil }
        self.client = client
        client.setTimeouts(send: 5, receive: 30)
        guard next("connected") != nil else { return nil }
    }

    func send(_ text: String) { client.send(RawClient.textFrame(text)) }

    func close() { shutdown(client.fd, Int32(SHUT_RDWR)) }

    /// The first queued or arriving frame of this type (earlier ones of other
    /// types stay queued); nil when none comes within the receive timeout.
    func next(_ type: String) -> [String: Any]? {
        while true {
            if let index = queue.firstIndex(where: { $0["type"] as? String == type }) { return queue.remove(at: index) }
            let more = client.read { !$0.isEmpty }
            guard !more.isEmpty else { return nil }
            buffer += more
            for text in takeFrames() {
                guard let frame = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { continue }
                queue.append(frame)
                seen.append(frame)
            }
        }
    }

    /// Complete text frames at the front of the buffer (a server's are unmasked).
    private func takeFrames() -> [String] {
        var texts: [String] = []
        while buffer.count >= 2 {
            var length = Int(buffer[1] & 0x7F), header = 2
            if length == 126 {
                guard buffer.count >= 4 else { break }
                length = Int(buffer[2]) << 8 | Int(buffer[3])
                header = 4
            } else if length == 127 {
                guard buffer.count >= 10 else { break }
                length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
                header = 10
            }
            guard buffer.count >= header + length else { break }
            if buffer[0] & 0x0F == 1 { texts.append(String(decoding: buffer[header..<(header + length)], as: UTF8.self)) }
            buffer.removeFirst(header + length)
        }
        return texts
    }
}
