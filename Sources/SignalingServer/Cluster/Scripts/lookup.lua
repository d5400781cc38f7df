local code = liveRoom(ARGV[3])
if not code then return false end
local k = P .. 'code:' .. code
-- c1 c2 exp, then for a group room max and cnt, and whether ARGV[4] (a
-- device, optional) is one of its members.
local h = redis.call('HMGET', k, 'c1', 'c2', 'exp', 'max', 'cnt')
h[6] = ARGV[4] and redis.call('HEXISTS', k, 'd:' .. ARGV[4]) or 0
return h
