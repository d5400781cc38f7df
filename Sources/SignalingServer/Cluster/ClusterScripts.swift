import Redis

/// The cluster's state changes, each one Lua script so Redis runs it
/// atomically: no instance ever sees a half-made room or seat.
///
/// Every script takes `ARGV[1]` = key prefix and `ARGV[2]` = now (Unix ms,
/// the instance's clock; expiry uses the same clock through `PEXPIREAT`).
/// Keys (`P` = prefix):
/// - `P code:<joinid>` hash `c1 c2 rid exp st` (st 0 pending, 1 accepted), expiring at `exp`;
///   a group room adds `max cnt seq` and per member `d:<deviceid>` → member id,
///   `i:<member id>` → admission index, `m:<index>` → device id
/// - `P gseats:<roomid>` hash member id → member of a group room's seated
///   members; `P gleft:<roomid>` set of member ids that left while others sat
/// - `P room:<roomid>` → join code, expiring at `exp`
/// - `P codes` sorted set of live join codes scored by `exp` (the code space, capped by `--max-rooms`)
/// - `P dev:<deviceid>` set of join codes (for purge), expiring with its last room
/// - `P miss:<address>` list of miss times, newest first (the rate limit's sliding log)
/// - `P seats:<roomid>` hash seat (`0` initiator, `1`) → member (`<instance>/<connection>`)
/// - `P member:<member>` hash `room seat [lost]`; `P seq:<member>` last command sequence applied
/// - `P inst:<instance>` present while the instance is alive (a heartbeat TTL)
/// - `P lost:<instance>` set of its members whose seats others freed while it was away
/// - `P inbox:<instance>` stream of frames for that instance's connections
/// - `P wake` stream of join codes whose room changed (long-poll wake-ups)
/// - `P turn-secret` the embedded relays' REST secret, hex (``ClusterRelaySecret``; no script touches it)
///
/// Hub scripts (`join`, `leave`, `relay`, `disconnect`) are idempotent by
/// sequence number: an instance resends what Redis may not have run after a
/// reconnect, and a command already applied is skipped, so nothing is lost
/// and nothing is done twice. Their only output is stream entries, which
/// the receiving instance reads in order from its last seen id.
///
/// The Lua is in `Cluster/Scripts/` (embedded at build time, checked by
/// luacheck in Tools/lib/lint-assets): `common.lua` starts every script,
/// `seat-preamble.lua` follows it for the seat scripts in `Seat/`.
enum ClusterScripts {
    static func source(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    static let common = source(PackageResources.common_lua)

    /// ARGV: P now code client1 exp maxRooms [max memberId] → the room's expiry (created;
    /// `{exp, memberId, max}` for a group room, asked for with `max`),
    /// 0 (code in use) or -1 (`maxRooms` live codes: the code space is full). Idempotent per client: the same `client1` creating a
    /// live code again (a retry of a request whose answer was lost, e.g. a
    /// 503 after Redis dropped) gets the expiry the first create set.
    static let create = RedisScript(common + source(PackageResources.create_lua))

    /// ARGV: P now address limit windowMs → ms until the address may accept again (0: now).
    static let limited = RedisScript(common + source(PackageResources.limited_lua))

    /// ARGV: P now code client2 address limit windowMs roomid memberId →
    /// {'ok', rid, exp[, max, memberId]} | {'limited', ms} | {'notfound'} | {'taken'} | {'full'} | {'collision'}.
    /// Idempotent per client: the `client2` that accepted gets `ok` with the
    /// same roomid again.
    static let accept = RedisScript(common + source(PackageResources.accept_lua))

    /// ARGV: P now code client1 → {'pending'} | {'accepted', rid} | {'notfound'}.
    static let check = RedisScript(common + source(PackageResources.check_lua))

    /// ARGV: P now roomid [deviceid] → {c1, c2 or false, exp, max, cnt, 1 if
    /// deviceid is a group member else 0} of the live accepted room, or nil.
    static let lookup = RedisScript(common + source(PackageResources.lookup_lua))

    /// ARGV: P now roomid → 1 deleted, 0 none live.
    static let delete = RedisScript(common + source(PackageResources.delete_lua))

    /// ARGV: P now deviceid... → {accepted rooms deleted, pending rooms deleted}.
    static let purge = RedisScript(common + source(PackageResources.purge_lua))

    static let all = [create, limited, accept, check, lookup, delete, purge] + ClusterHubScripts.all
}
