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
  local h = redis.call('HMGET', k, 'c1', 'c2', 'rid', 'seq')
  if h[1] then redis.call('SREM', P .. 'dev:' .. h[1], code) end
  if h[2] then redis.call('SREM', P .. 'dev:' .. h[2], code) end
  -- A group room's members: m:<index> holds each one's device.
  for i = 1, tonumber(h[4] or '0') do
    local dev = redis.call('HGET', k, 'm:' .. i)
    if dev then redis.call('SREM', P .. 'dev:' .. dev, code) end
  end
  if h[3] then redis.call('DEL', P .. 'room:' .. h[3], P .. 'gseats:' .. h[3], P .. 'gleft:' .. h[3]) end
  redis.call('DEL', k)
  redis.call('ZREM', P .. 'codes', code)
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
