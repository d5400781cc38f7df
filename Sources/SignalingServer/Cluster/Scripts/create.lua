local k = P .. 'code:' .. ARGV[3]
local h = redis.call('HMGET', k, 'exp', 'c1')
local exp = h[1]
if exp then
  if tonumber(exp) > NOW then
    if h[2] ~= ARGV[4] then return 0 end
    -- The creator's retry is answered as the first create was, if it asks
    -- for the same kind of room.
    local mid = redis.call('HGET', k, 'd:' .. ARGV[4])
    if ARGV[7] then
      if not mid then return 0 end
      return {tonumber(exp), mid, tonumber(redis.call('HGET', k, 'max'))}
    end
    if mid then return 0 end
    return tonumber(exp)
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
if ARGV[7] then
  -- A group room (ARGV[7] = max, ARGV[8] = the creator's member id): its
  -- members as d:<device> → member id, i:<member id> → admission index,
  -- m:<index> → device; cnt members now, seq the last index given.
  redis.call('HSET', k, 'max', ARGV[7], 'cnt', '1', 'seq', '1')
  redis.call('HSET', k, 'd:' .. ARGV[4], ARGV[8], 'i:' .. ARGV[8], '1', 'm:1', ARGV[4])
  return {e, ARGV[8], tonumber(ARGV[7])}
end
return e
