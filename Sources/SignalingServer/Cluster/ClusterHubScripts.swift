import Redis

/// The signaling hub's seat rules (the same as ``SignalingHub``'s) as Lua
/// scripts over the keys described in ``ClusterScripts``. Each takes
/// `ARGV[3]` = member (`<instance>/<connection>`) and `ARGV[4]` = the
/// member's command sequence number, and answers 1 (applied) or 0 (a
/// resend of a command already applied). Every frame it causes, to the
/// sender too, is an entry in the receiving instance's inbox stream, with
/// `ev` naming it.
///
/// A seat held by a member of an instance whose heartbeat key expired (a
/// killed instance) is free: the next `join_room` takes it and the other
/// member hears `peer_disconnected`, as it would have from a live server.
enum ClusterHubScripts {
    static let preamble = ClusterScripts.common + """
        local M = ARGV[3]
        local qk = P .. 'seq:' .. M
        if tonumber(ARGV[4]) <= tonumber(redis.call('GET', qk) or '0') then return 0 end
        redis.call('SET', qk, ARGV[4], 'PX', 86400000)
        local function vacate(member, kind)
          local mk = P .. 'member:' .. member
          local m = redis.call('HMGET', mk, 'room', 'seat')
          redis.call('DEL', mk)
          if not m[1] then return nil end
          local sk = P .. 'seats:' .. m[1]
          if redis.call('HGET', sk, m[2]) == member then redis.call('HDEL', sk, m[2]) end
          local other = redis.call('HGET', sk, tostring(1 - tonumber(m[2])))
          if other and alive(other) then emit(other, 'ev', kind, 'room', m[1]) end
          return m[1]
        end

        """

    /// ARGV: … roomid.
    static let join = RedisScript(preamble + """
        local rid = ARGV[5]
        local code, exp = liveRoom(rid)
        if not code then
          emit(M, 'ev', 'error', 'code', 'room_not_found')
          return 1
        end
        local mk = P .. 'member:' .. M
        local sk = P .. 'seats:' .. rid
        local m = redis.call('HMGET', mk, 'room', 'seat')
        local seats = {redis.call('HGET', sk, '0'), redis.call('HGET', sk, '1')}
        for s = 1, 2 do
          if seats[s] and seats[s] ~= M and not alive(seats[s]) then
            redis.call('HDEL', sk, tostring(s - 1))
            redis.call('DEL', P .. 'member:' .. seats[s])
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
          return 1
        end
        local free
        if not seats[1] then free = 0 elseif not seats[2] then free = 1 end
        if not free then
          for s = 1, 2 do emit(seats[s], 'ev', 'probe') end
          emit(M, 'ev', 'full')
          return 1
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
        return 1
        """)

    static let leave = RedisScript(preamble + """
        local r = vacate(M, 'peer_left')
        emit(M, 'ev', 'left', 'room', r or '')
        return 1
        """)

    /// ARGV: … type from payload (the frame's other fields as a JSON object).
    static let relay = RedisScript(preamble + """
        local m = redis.call('HMGET', P .. 'member:' .. M, 'room', 'seat')
        if not m[1] then
          emit(M, 'ev', 'error', 'code', 'not_in_room')
          return 1
        end
        local sk = P .. 'seats:' .. m[1]
        if redis.call('HGET', sk, m[2]) ~= M then
          redis.call('DEL', P .. 'member:' .. M)
          emit(M, 'ev', 'error', 'code', 'not_in_room')
          return 1
        end
        local other = redis.call('HGET', sk, tostring(1 - tonumber(m[2])))
        if not other or not alive(other) then
          emit(M, 'ev', 'error', 'code', 'no_peer')
          return 1
        end
        emit(other, 'ev', 'relay', 'room', m[1], 'type', ARGV[5], 'from', ARGV[6], 'payload', ARGV[7])
        return 1
        """)

    static let disconnect = RedisScript(preamble + """
        vacate(M, 'peer_disconnected')
        redis.call('PEXPIRE', qk, 60000)
        return 1
        """)

    static let all = [join, leave, relay, disconnect]
}
