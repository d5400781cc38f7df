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
local max = redis.call('HGET', k, 'max')
if max then
  -- A group room: admits members up to max (ARGV[9]: the new member's id).
  local mine = redis.call('HGET', k, 'd:' .. ARGV[4])
  if mine then
    if h[2] ~= '1' or redis.call('HGET', k, 'c1') == ARGV[4] then return {'taken'} end
    return {'ok', h[4], h[1], max, mine}
  end
  if tonumber(redis.call('HGET', k, 'cnt')) >= tonumber(max) then return {'full'} end
  if redis.call('HEXISTS', k, 'i:' .. ARGV[9]) == 1 then return {'collision'} end
  local rid = h[4]
  local e = tonumber(h[1])
  if h[2] ~= '1' then
    rid = ARGV[8]
    local rk = P .. 'room:' .. rid
    if redis.call('EXISTS', rk) == 1 then return {'collision'} end
    redis.call('HSET', k, 'c2', ARGV[4], 'rid', rid, 'st', '1')
    redis.call('SET', rk, ARGV[3], 'PXAT', e)
    wake(ARGV[3])
  end
  local n = redis.call('HINCRBY', k, 'seq', 1)
  redis.call('HINCRBY', k, 'cnt', 1)
  redis.call('HSET', k, 'd:' .. ARGV[4], ARGV[9], 'i:' .. ARGV[9], n, 'm:' .. n, ARGV[4])
  indexDevice(ARGV[4], ARGV[3], e)
  return {'ok', rid, h[1], max, ARGV[9]}
end
if h[2] == '1' then
  if h[3] == ARGV[4] then return {'ok', h[4], h[1]} end
  return {'taken'}
end
local rk = P .. 'room:' .. ARGV[8]
if redis.call('EXISTS', rk) == 1 then return {'collision'} end
local e = tonumber(h[1])
redis.call('HSET', k, 'c2', ARGV[4], 'rid', ARGV[8], 'st', '1')
redis.call('SET', rk, ARGV[3], 'PXAT', e)
indexDevice(ARGV[4], ARGV[3], e)
wake(ARGV[3])
return {'ok', ARGV[8], h[1]}
