local code = liveRoom(ARGV[3])
if not code then return false end
return redis.call('HMGET', P .. 'code:' .. code, 'c1', 'c2', 'exp')
