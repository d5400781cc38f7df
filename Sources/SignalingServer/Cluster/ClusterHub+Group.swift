import Signaling

extension ClusterHub {
    /// The inbox entries of group rooms (WireProtocol §2b), as the seat
    /// scripts write them: `gjoined` (`mid`, `max`, `members` as
    /// `<member id>:<1 if the newcomer offers, else 0>` joined by commas),
    /// `mjoined` (`mid`, `init`, `n`) and `mleft` (`mid`, `reason`, `n`).
    static func groupMessage(_ event: String, _ fields: [String: String]) -> ServerMessage? {
        guard let room = fields["room"], !room.isEmpty, let member = fields["mid"].flatMap(MemberID.init) else { return nil }
        switch event {
        case "gjoined":
            guard let max = fields["max"].flatMap(Int.init) else { return nil }
            let peers = (fields["members"] ?? "").split(separator: ",").compactMap { entry -> GroupPeer? in
                let parts = entry.split(separator: ":")
                guard parts.count == 2, let id = MemberID(String(parts[0])) else { return nil }
                return GroupPeer(memberId: id, isInitiator: parts[1] == "1")
            }
            return .groupJoined(GroupJoined(roomId: room, memberId: member, max: max, members: peers))
        case "mjoined":
            return .memberJoined(roomId: room, memberId: member, isInitiator: fields["init"] == "1", userCount: fields["n"].flatMap(Int.init) ?? 2)
        case "mleft":
            let reason = fields["reason"].flatMap(MemberLeaving.init(rawValue:)) ?? .left
            return .memberLeft(roomId: room, memberId: member, reason: reason, userCount: fields["n"].flatMap(Int.init) ?? 1)
        default:
            return nil
        }
    }
}
