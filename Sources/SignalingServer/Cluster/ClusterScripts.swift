import Redis

/// The cluster's state changes, each one Lua script so Redis runs it
/// atomically: no instance ever sees a half-made room or seat.
///
/// Every script takes `ARGV[1]` = key prefix and `ARGV[2]` = now (Unix ms,
/// the instance's clock; expiry uses the same clock through `PEXPIREAT`).
/// Keys (`P` = prefix):
/// - `P code:<joinid>` hash `c1 c2 rid exp st` (st 0 pending, 1 accepted), expiring at `exp`
/// - `P room:<roomid>` → join code, expiring at `exp`
/// - `P dev:<deviceid>` set of join codes (for purge), expiring with its last room
/// - `P miss:<address>` list of miss times, newest first (the rate limit's sliding log)
/// - `P seats:<roomid>` hash seat (`0` initiator, `1`) → member (`<instance>/<connection>`)
/// - `P member:<member>` hash `room seat [lost]`; `P seq:<member>` last command sequence applied
/// - `P inst:<instance>` present while the instance is alive (a heartbeat TTL)
/// - `P lost:<instance>` set of its members whose seats others freed while it was away
/// - `P inbox:<instance>` stream of frames for that instance's connections
/// - `P wake` stream of join codes whose room changed (long-poll wake-ups)
///
/// Hub scripts (`join`, `leave`, `relay`, `disconnect`) are idempotent by
/// sequence number: an instance resends what Redis may not have run after a
/// reconnect, and a command already applied is skipped, so nothing is lost
/// and nothing is done twice. Their only output is stream entries, which
/// the receiving instance reads in order from its last seen id.
enum ClusterScripts {
    static let common = """
        local P = ARGV[1]
        local NOW = tonumber(ARGV[2])
        local function instanceOf(member)
          return string.sub(member, 1, string.find(member, '/', 1, true) - 1)
        end
        local EMITTED = {}
        local function emit(member, ...)
          local slash = string.find(member, '/', 1, true)
          local key = P .. 'inbox:' .. string.sub(member, 1, slash - 1)
          EMITTED[key] = redis.call('XADD', key, 'MAXLEN', '~', '100000', '*', 'to', string.sub(member, slash + 1), ...)
          redis.call('PEXPIRE', key, 600000)
        end
        local function alive(member)
          return redis.call('EXISTS', P .. 'inst:' .. instanceOf(member)) == 1
        end
        local function wake(code)
          redis.call('XADD', P .. 'wake', 'MAXLEN', '~', '10000', '*', 'code', code)
        end
        local function liveRoom(rid)
          local code = redis.call('GET', P .. 'room:' .. rid)
          if not code then return nil end
          local h = redis.call('HMGET', P .. 'code:' .. code, 'exp', 'st', 'rid')
          if not h[1] or tonumber(h[1]) <= NOW or h[2] ~= '1' or h[3] ~= rid then return nil end
          return code, tonumber(h[1])
        end
        local function removeRoom(code)
          local k = P .. 'code:' .. code
          local h = redis.call('HMGET', k, 'c1', 'c2', 'rid')
          if h[1] then redis.call('SREM', P .. 'dev:' .. h[1], code) end
          if h[2] then redis.call('SREM', P .. 'dev:' .. h[2], code) end
          if h[3] then redis.call('DEL', P .. 'room:' .. h[3]) end
          redis.call('DEL', k)
          wake(code)
        end
        local function indexDevice(dev, code, exp)
          local d = P .. 'dev:' .. dev
          redis.call('SADD', d, code)
          local t = redis.call('PTTL', d)
          if t < 0 or NOW + t < exp then redis.call('PEXPIREAT', d, exp) end
        end
        local function retryAfter(mk, limit, window)
          if redis.call('LLEN', mk) < limit then return 0 end
          local oldest = tonumber(redis.call('LINDEX', mk, limit - 1))
          if not oldest then return 0 end
          if NOW < oldest + window then return oldest + window - NOW end
          return 0
        end

        """

    /// ARGV: P now code client1 exp → the room's expiry (created), or 0
    /// (code in use). Idempotent per client: the same `client1` creating a
    /// live code again (a retry of a request whose answer was lost, e.g. a
    /// 503 after Redis dropped) gets the expiry the first create set.
    static let create = RedisScript(common + """
        local k = P .. 'code:' .. ARGV[3]
        local h = redis.call('HMGET', k, 'exp', 'c1')
        local exp = h[1]
        if exp then
          if tonumber(exp) > NOW then
            if h[2] == ARGV[4] then return tonumber(exp) end
            return 0
          end
          removeRoom(ARGV[3])
        end
        local e = tonumber(ARGV[5])
        redis.call('HSET', k, 'c1', ARGV[4], 'exp', ARGV[5], 'st', '0')
        redis.call('PEXPIREAT', k, e)
        indexDevice(ARGV[4], ARGV[3], e)
        return e
        """)

    /// ARGV: P now address limit windowMs → ms until the address may accept again (0: now).
    static let limited = RedisScript(common + """
        return retryAfter(P .. 'miss:' .. ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]))
        """)

    /// ARGV: P now code client2 address limit windowMs roomid →
    /// {'ok', rid} | {'limited', ms} | {'notfound'} | {'taken'} | {'collision'}.
    /// Idempotent per client: the `client2` that accepted gets `ok` with the
    /// same roomid again.
    static let accept = RedisScript(common + """
        local mk = P .. 'miss:' .. ARGV[5]
        local limit = tonumber(ARGV[6])
        local window = tonumber(ARGV[7])
        local wait = retryAfter(mk, limit, window)
        if wait > 0 then return {'limited', wait} end
        local k = P .. 'code:' .. ARGV[3]
        local h = redis.call('HMGET', k, 'exp', 'st', 'c2', 'rid')
        if not h[1] or tonumber(h[1]) <= NOW then
          redis.call('LPUSH', mk, ARGV[2])
          redis.call('LTRIM', mk, 0, limit - 1)
          redis.call('PEXPIRE', mk, window)
          return {'notfound'}
        end
        if h[2] == '1' then
          if h[3] == ARGV[4] then return {'ok', h[4]} end
          return {'taken'}
        end
        local rk = P .. 'room:' .. ARGV[8]
        if redis.call('EXISTS', rk) == 1 then return {'collision'} end
        local e = tonumber(h[1])
        redis.call('HSET', k, 'c2', ARGV[4], 'rid', ARGV[8], 'st', '1')
        redis.call('SET', rk, ARGV[3], 'PXAT', e)
        indexDevice(ARGV[4], ARGV[3], e)
        wake(ARGV[3])
        return {'ok', ARGV[8]}
        """)

    /// ARGV: P now code client1 → {'pending'} | {'accepted', rid} | {'notfound'}.
    static let check = RedisScript(common + """
        local h = redis.call('HMGET', P .. 'code:' .. ARGV[3], 'c1', 'exp', 'st', 'rid')
        if not h[2] or tonumber(h[2]) <= NOW or h[1] ~= ARGV[4] then return {'notfound'} end
        if h[3] == '1' then return {'accepted', h[4]} end
        return {'pending'}
        """)

    /// ARGV: P now roomid → {c1, c2 or false, exp} of the live accepted room, or nil.
    static let lookup = RedisScript(common + """
        local code = liveRoom(ARGV[3])
        if not code then return false end
        return redis.call('HMGET', P .. 'code:' .. code, 'c1', 'c2', 'exp')
        """)

    /// ARGV: P now roomid → 1 deleted, 0 none live.
    static let delete = RedisScript(common + """
        local code = liveRoom(ARGV[3])
        if not code then return 0 end
        removeRoom(code)
        return 1
        """)

    /// ARGV: P now deviceid... → {accepted rooms deleted, pending rooms deleted}.
    static let purge = RedisScript(common + """
        local seen = {}
        local rooms, pendings = 0, 0
        for i = 3, #ARGV do
          for _, code in ipairs(redis.call('SMEMBERS', P .. 'dev:' .. ARGV[i])) do
            if not seen[code] then
              seen[code] = true
              local h = redis.call('HMGET', P .. 'code:' .. code, 'c1', 'c2', 'exp', 'st')
              local mine = false
              for j = 3, #ARGV do
                if h[1] == ARGV[j] or h[2] == ARGV[j] then mine = true end
              end
              if mine and h[3] and tonumber(h[3]) > NOW then
                if h[4] == '1' then rooms = rooms + 1 else pendings = pendings + 1 end
                removeRoom(code)
              end
            end
          end
        end
        return {rooms, pendings}
        """)

    static let all = [create, limited, accept, check, lookup, delete, purge] + ClusterHubScripts.all
}
