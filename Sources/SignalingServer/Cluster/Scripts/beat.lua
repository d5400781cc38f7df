local ik = P .. 'inst:' .. ARGV[3]
local was = redis.call('EXISTS', ik)
redis.call('SET', ik, '1', 'PX', ARGV[4])
if was == 1 then return 0 end
local lk = P .. 'lost:' .. ARGV[3]
local members = redis.call('SMEMBERS', lk)
redis.call('DEL', lk)
local back = 0
for _, M in ipairs(members) do
  local mk = P .. 'member:' .. M
  local m = redis.call('HMGET', mk, 'room', 'seat', 'lost')
  if m[1] and m[3] then
    local code, exp = liveRoom(m[1])
    local sk = P .. 'seats:' .. m[1]
    local holder = redis.call('HGET', sk, m[2])
    if code and (not holder or holder == M) then
      redis.call('HSET', sk, m[2], M)
      redis.call('PEXPIREAT', sk, exp)
      redis.call('HDEL', mk, 'lost')
      back = back + 1
      local other = redis.call('HGET', sk, tostring(1 - tonumber(m[2])))
      if other then
        emit(other, 'ev', 'ready', 'room', m[1], 'init', m[2] == '0' and 0 or 1)
        emit(M, 'ev', 'ready', 'room', m[1], 'init', m[2] == '0' and 1 or 0)
      end
    else
      redis.call('DEL', mk)
    end
  end
end
return back
