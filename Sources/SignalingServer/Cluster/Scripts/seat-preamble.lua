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
