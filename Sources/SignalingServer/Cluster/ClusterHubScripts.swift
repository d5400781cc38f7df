import Redis

/// The signaling hub's seat rules (the same as ``SignalingHub``'s) as Lua
/// scripts over the keys described in ``ClusterScripts``. Each takes
/// `ARGV[3]` = member (`<instance>/<connection>`) and `ARGV[4]` = the
/// member's command sequence number, and answers `{applied, through}`:
/// 1 (applied) or 0 (a resend of a command already applied), and the id of
/// the last entry it put in the sender's instance inbox (`0-0`: none), so the
/// instance can hold its own replies until those frames are out
/// (``ReplyOrder``). Every frame it causes, to the sender too, is an entry in
/// the receiving instance's inbox stream, with `ev` naming it.
///
/// A seat held by a member of an instance whose heartbeat key expired (a
/// killed instance, or one cut off from Redis) is free: the next
/// `join_room` takes it and the other member hears `peer_disconnected`, as
/// it would have from a live server. The member is only marked `lost` (and
/// listed in `P lost:<instance>`): if its instance comes back, ``beat``
/// gives it its seat again when nobody took it meanwhile. Until a seat is
/// freed, relays to its holder are delivered, even while the holder's
/// instance is away: its inbox keeps them until it reads again.
enum ClusterHubScripts {
    static let preamble = ClusterScripts.common + ClusterScripts.source(PackageResources.seat_preamble_lua)

    /// ARGV: … roomid [deviceid] (a group room seats the member by its device).
    static let join = RedisScript(preamble + ClusterScripts.source(PackageResources.join_lua))

    static let leave = RedisScript(preamble + ClusterScripts.source(PackageResources.leave_lua))

    /// ARGV: … type from payload (the frame's other fields as a JSON object) to
    /// (the member a group room's frame is for; "" when none).
    static let relay = RedisScript(preamble + ClusterScripts.source(PackageResources.relay_lua))

    static let disconnect = RedisScript(preamble + ClusterScripts.source(PackageResources.disconnect_lua))

    /// The instance's heartbeat (ARGV: P now instance ttlMs). If its key
    /// had expired, other instances may have freed its members' seats: each
    /// lost member whose seat is still free takes it again, and both members
    /// of a room full again hear `room_ready` (as after a rejoin); a member
    /// whose seat someone else took stays out (its next relay is
    /// `not_in_room`). Answers how many members took their seats again.
    static let beat = RedisScript(ClusterScripts.common + ClusterScripts.source(PackageResources.beat_lua))

    static let all = [join, leave, relay, disconnect, beat]
}
