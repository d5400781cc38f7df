local rid = ARGV[5]
local code, exp = liveRoom(rid)
if not code then
  emit(M, 'ev', 'error', 'code', 'room_not_found')
  return done()
end
local k = P .. 'code:' .. code
local gmax = redis.call('HGET', k, 'max')
if gmax then
  -- A group room: the member's device (ARGV[6]) names its seat.
  local me = ARGV[6] and redis.call('HGET', k, 'd:' .. ARGV[6])
  if not me then
    emit(M, 'ev', 'error', 'code', 'not_a_member')
    return done()
  end
  local gk = P .. 'gseats:' .. rid
  local mk = P .. 'member:' .. M
  local m = redis.call('HMGET', mk, 'room', 'seat')
  -- Seats held from an instance that is gone are free: their members hear it.
  local seated = redis.call('HGETALL', gk)
  for i = 1, #seated, 2 do
    if seated[i + 1] ~= M and not alive(seated[i + 1]) then
      redis.call('DEL', P .. 'member:' .. seated[i + 1])
      vacateGroup(seated[i + 1], rid, seated[i], 'disconnected')
    end
  end
  local holder = redis.call('HGET', gk, me)
  if holder and holder ~= M then
    emit(holder, 'ev', 'probe')
    emit(M, 'ev', 'full')
    return done()
  end
  local fresh = not (holder == M and m[1] == rid)
  if fresh then
    if m[1] then vacate(M, 'peer_left') end
    redis.call('HSET', gk, me, M)
    redis.call('PEXPIREAT', gk, exp)
    redis.call('HSET', mk, 'room', rid, 'seat', me, 'g', '1')
    redis.call('PEXPIREAT', mk, exp)
    redis.call('SREM', P .. 'gleft:' .. rid, me)
  end
  -- The others, in admission order; of two members the earlier offers.
  local mine = tonumber(redis.call('HGET', k, 'i:' .. me) or '99')
  local others = {}
  seated = redis.call('HGETALL', gk)
  for i = 1, #seated, 2 do
    if seated[i] ~= me then
      others[#others + 1] = {seated[i], tonumber(redis.call('HGET', k, 'i:' .. seated[i]) or '99'), seated[i + 1]}
    end
  end
  table.sort(others, function(a, b) return a[2] < b[2] end)
  local list = {}
  for _, o in ipairs(others) do list[#list + 1] = o[1] .. ':' .. (mine < o[2] and '1' or '0') end
  emit(M, 'ev', 'gjoined', 'room', rid, 'mid', me, 'max', gmax, 'members', table.concat(list, ','))
  if fresh then
    for _, o in ipairs(others) do
      emit(o[3], 'ev', 'mjoined', 'room', rid, 'mid', me, 'init', o[2] < mine and 1 or 0, 'n', #others + 1)
    end
  end
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
