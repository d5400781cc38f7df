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
    static let preamble = ClusterScripts.common + """
        local M = ARGV[3]
        local MINE = P .. 'inbox:' .. instanceOf(M)
        local function done()
          return {1, EMITTED[MINE] or '0-0'}
        end
        local qk = P .. 'seq:' .. M
        if tonumber(ARGV[4]) <= tonumber(redis.call('GET', qk) or '0') then
          -- Its frames went out the first time: at most up to the inbox's end.
          local last = redis.call('XREVRANGE', MINE, '+', '-', 'COUNT', 1)[1]
          return {0, last and last[1] or '0-0'}
        end
        redis.call('SET', qk, ARGV[4], 'PX', 86400000)
        local function vacate(member, kind)
          local mk = P .. 'member:' .. member
          local m = redis.call('HMGET', mk, 'room', 'seat')
          redis.call('DEL', mk)
          if not m[1] then return nil end
          local sk = P .. 'seats:' .. m[1]
          if redis.call('HGET', sk, m[2]) ~= member then return m[1] end
          redis.call('HDEL', sk, m[2])
          local other = redis.call('HGET', sk, tostring(1 - tonumber(m[2])))
          if other then emit(other, 'ev', kind, 'room', m[1]) end
          return m[1]
        end

        """

    /// ARGV: … roomid.
    static let join = RedisScript(preamble + """
        local rid = ARGV[5]
        local code, exp = liveRoom(rid)
        if not code then
          emit(M, 'ev', 'error', 'code', 'room_not_found')
          return done()
        end
        local mk = P .. 'member:' .. M
        local sk = P .. 'seats:' .. rid
        local m = redis.call('HMGET', mk, 'room', 'seat')
        local seats = {redis.call('HGET', sk, '0'), redis.call('HGET', sk, '1')}
        for s = 1, 2 do
          if seats[s] and seats[s] ~= M and not alive(seats[s]) then
            redis.call('HDEL', sk, tostring(s - 1))
            redis.call('HSET', P .. 'member:' .. seats[s], 'lost', '1')
            local lk = P .. 'lost:' .. instanceOf(seats[s])
            redis.call('SADD', lk, seats[s])
            redis.call('PEXPIREAT', lk, exp)
            seats[s] = false
            local other = seats[3 - s]
            if other and other ~= M and alive(other) then emit(other, 'ev', 'peer_disconnected', 'room', rid) end
          end
        end
        local function count()
          local n = 0
          if seats[1] then n = n + 1 end
          if seats[2] then n = n + 1 end
          return n
        end
        if m[1] == rid and seats[tonumber(m[2]) + 1] == M then
          local n = count()
          emit(M, 'ev', 'joined', 'room', rid, 'n', n, 'init', m[2] == '0' and 1 or 0)
          return done()
        end
        local free
        if not seats[1] then free = 0 elseif not seats[2] then free = 1 end
        if not free then
          for s = 1, 2 do emit(seats[s], 'ev', 'probe') end
          emit(M, 'ev', 'full')
          return done()
        end
        if m[1] then vacate(M, 'peer_left') end
        redis.call('HSET', sk, tostring(free), M)
        redis.call('PEXPIREAT', sk, exp)
        redis.call('HSET', mk, 'room', rid, 'seat', tostring(free))
        redis.call('PEXPIREAT', mk, exp)
        seats[free + 1] = M
        local n = count()
        emit(M, 'ev', 'joined', 'room', rid, 'n', n, 'init', free == 0 and 1 or 0)
        if n == 2 then
          emit(seats[2 - free], 'ev', 'ready', 'room', rid, 'init', free == 0 and 0 or 1)
          emit(M, 'ev', 'ready', 'room', rid, 'init', free == 0 and 1 or 0)
        end
        return done()
        """)

    static let leave = RedisScript(preamble + """
        local r = vacate(M, 'peer_left')
        emit(M, 'ev', 'left', 'room', r or '')
        return done()
        """)

    /// ARGV: … type from payload (the frame's other fields as a JSON object).
    static let relay = RedisScript(preamble + """
        local m = redis.call('HMGET', P .. 'member:' .. M, 'room', 'seat', 'lost')
        if not m[1] then
          emit(M, 'ev', 'error', 'code', 'not_in_room')
          return done()
        end
        local sk = P .. 'seats:' .. m[1]
        if redis.call('HGET', sk, m[2]) ~= M then
          -- A lost member keeps its claim until its instance's next beat.
          if not m[3] then redis.call('DEL', P .. 'member:' .. M) end
          emit(M, 'ev', 'error', 'code', 'not_in_room')
          return done()
        end
        local other = redis.call('HGET', sk, tostring(1 - tonumber(m[2])))
        if not other then
          emit(M, 'ev', 'error', 'code', 'no_peer')
          return done()
        end
        emit(other, 'ev', 'relay', 'room', m[1], 'type', ARGV[5], 'from', ARGV[6], 'payload', ARGV[7])
        return done()
        """)

    static let disconnect = RedisScript(preamble + """
        vacate(M, 'peer_disconnected')
        redis.call('PEXPIRE', qk, 60000)
        return done()
        """)

    /// The instance's heartbeat (ARGV: P now instance ttlMs). If its key
    /// had expired, other instances may have freed its members' seats: each
    /// lost member whose seat is still free takes it again, and both members
    /// of a room full again hear `room_ready` (as after a rejoin); a member
    /// whose seat someone else took stays out (its next relay is
    /// `not_in_room`). Answers how many members took their seats again.
    static let beat = RedisScript(ClusterScripts.common + """
        local ik = P .. 'inst:' .. ARGV[3]
        local was = redis.call('EXISTS', ik)
        redis.call('SET', ik, '1', 'PX', ARGV[4])
        if was == 1 then return 0 end
        local lk = P .. 'lost:' .. ARGV[3]
        local members = redis.call('SMEMBERS', lk)
        redis.call('DEL', lk)
        local back = 0
        for _, M in ipairs(members) do
          local mk = P .. 'member:' .. M
          local m = redis.call('HMGET', mk, 'room', 'seat', 'lost')
          if m[1] and m[3] then
            local code, exp = liveRoom(m[1])
            local sk = P .. 'seats:' .. m[1]
            local holder = redis.call('HGET', sk, m[2])
            if code and (not holder or holder == M) then
              redis.call('HSET', sk, m[2], M)
              redis.call('PEXPIREAT', sk, exp)
              redis.call('HDEL', mk, 'lost')
              back = back + 1
              local other = redis.call('HGET', sk, tostring(1 - tonumber(m[2])))
              if other then
                emit(other, 'ev', 'ready', 'room', m[1], 'init', m[2] == '0' and 0 or 1)
                emit(M, 'ev', 'ready', 'room', m[1], 'init', m[2] == '0' and 1 or 0)
              end
            else
              redis.call('DEL', mk)
            end
          end
        end
        return back
        """)

    static let all = [join, leave, relay, disconnect, beat]
}
