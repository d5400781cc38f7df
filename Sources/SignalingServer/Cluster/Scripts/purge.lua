local seen = {}
local rooms, pendings = 0, 0
for i = 3, #ARGV do
  for _, code in ipairs(redis.call('SMEMBERS', P .. 'dev:' .. ARGV[i])) do
    if not seen[code] then
      seen[code] = true
      local h = redis.call('HMGET', P .. 'code:' .. code, 'c1', 'c2', 'exp', 'st')
      local mine = false
      for j = 3, #ARGV do
        if h[1] == ARGV[j] or h[2] == ARGV[j] then mine = true end
      end
      if mine and h[3] and tonumber(h[3]) > NOW then
        if h[4] == '1' then rooms = rooms + 1 else pendings = pendings + 1 end
        removeRoom(code)
      end
    end
  end
end
return {rooms, pendings}
