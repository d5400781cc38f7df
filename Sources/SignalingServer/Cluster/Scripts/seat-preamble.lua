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
-- A group room's seats: gseats:<rid> member id → member; gleft:<rid> the
-- member ids that sent leave_room since they were last seated. When nobody
-- is seated the room is forgotten, and ends if every member it admitted left.
local function vacateGroup(member, rid, mid, reason)
  local sk = P .. 'gseats:' .. rid
  if redis.call('HGET', sk, mid) ~= member then return end
  redis.call('HDEL', sk, mid)
  local lk = P .. 'gleft:' .. rid
  if reason == 'left' then
    redis.call('SADD', lk, mid)
    redis.call('PEXPIRE', lk, 86400000)
  end
  local seated = redis.call('HGETALL', sk)
  local n = #seated / 2
  for i = 2, #seated, 2 do emit(seated[i], 'ev', 'mleft', 'room', rid, 'mid', mid, 'reason', reason, 'n', n) end
  if n > 0 then return end
  local code = liveRoom(rid)
  local ended = code ~= nil and reason == 'left'
  if ended then
    local k = P .. 'code:' .. code
    for i = 1, tonumber(redis.call('HGET', k, 'seq') or '0') do
      local dev = redis.call('HGET', k, 'm:' .. i)
      if dev and redis.call('SISMEMBER', lk, redis.call('HGET', k, 'd:' .. dev)) == 0 then ended = false end
    end
  end
  redis.call('DEL', lk)
  if ended then removeRoom(code) end
end
local function vacate(member, kind)
  local mk = P .. 'member:' .. member
  local m = redis.call('HMGET', mk, 'room', 'seat', 'g')
  redis.call('DEL', mk)
  if not m[1] then return nil end
  if m[3] then
    vacateGroup(member, m[1], m[2], kind == 'peer_left' and 'left' or 'disconnected')
    return m[1]
  end
  local sk = P .. 'seats:' .. m[1]
  if redis.call('HGET', sk, m[2]) ~= member then return m[1] end
  redis.call('HDEL', sk, m[2])
  local other = redis.call('HGET', sk, tostring(1 - tonumber(m[2])))
  if other then emit(other, 'ev', kind, 'room', m[1]) end
  return m[1]
end
