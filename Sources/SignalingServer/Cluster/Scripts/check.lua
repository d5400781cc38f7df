local h = redis.call('HMGET', P .. 'code:' .. ARGV[3], 'c1', 'exp', 'st', 'rid')
if not h[2] or tonumber(h[2]) <= NOW or h[1] ~= ARGV[4] then return {'notfound'} end
if h[3] == '1' then return {'accepted', h[4]} end
return {'pending'}
