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
