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
-- The code space: live codes, scored by expiry; full past ARGV[6].
local codes = P .. 'codes'
redis.call('ZREMRANGEBYSCORE', codes, '-inf', NOW)
if redis.call('ZCARD', codes) >= tonumber(ARGV[6]) then return -1 end
local e = tonumber(ARGV[5])
redis.call('HSET', k, 'c1', ARGV[4], 'exp', ARGV[5], 'st', '0')
redis.call('ZADD', codes, e, ARGV[3])
redis.call('PEXPIREAT', k, e)
indexDevice(ARGV[4], ARGV[3], e)
return e
