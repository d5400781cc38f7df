local seen = {}
local rooms, pendings = 0, 0
local function count(st)
  if st == '1' then rooms = rooms + 1 else pendings = pendings + 1 end
end
for i = 3, #ARGV do
  for _, code in ipairs(redis.call('SMEMBERS', P .. 'dev:' .. ARGV[i])) do
    if not seen[code] then
      seen[code] = true
      local k = P .. 'code:' .. code
      local h = redis.call('HMGET', k, 'c1', 'c2', 'exp', 'st', 'max')
      if h[3] and tonumber(h[3]) > NOW then
        if h[5] then
          -- A group room loses the purged members and ends with its last one.
          for j = 3, #ARGV do
            local mid = redis.call('HGET', k, 'd:' .. ARGV[j])
            if mid then
              local index = redis.call('HGET', k, 'i:' .. mid)
              redis.call('HDEL', k, 'd:' .. ARGV[j], 'i:' .. mid, 'm:' .. index)
              redis.call('HINCRBY', k, 'cnt', -1)
              redis.call('SREM', P .. 'dev:' .. ARGV[j], code)
            end
          end
          if tonumber(redis.call('HGET', k, 'cnt')) <= 0 then
            count(h[4])
            removeRoom(code)
          end
        else
          local mine = false
          for j = 3, #ARGV do
            if h[1] == ARGV[j] or h[2] == ARGV[j] then mine = true end
          end
          if mine then
            count(h[4])
            removeRoom(code)
          end
        end
      end
    end
  end
end
return {rooms, pendings}
