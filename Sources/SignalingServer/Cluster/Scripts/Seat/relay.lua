local m = redis.call('HMGET', P .. 'member:' .. M, 'room', 'seat', 'lost')
if not m[1] then
  emit(M, 'ev', 'error', 'code', 'not_in_room')
  return done()
end
local sk = P .. 'seats:' .. m[1]
if redis.call('HGET', sk, m[2]) ~= M then
  -- A lost member keeps its claim until its instance's next beat.
  if not m[3] then redis.call('DEL', P .. 'member:' .. M) end
  emit(M, 'ev', 'error', 'code', 'not_in_room')
  return done()
end
local other = redis.call('HGET', sk, tostring(1 - tonumber(m[2])))
if not other then
  emit(M, 'ev', 'error', 'code', 'no_peer')
  return done()
end
emit(other, 'ev', 'relay', 'room', m[1], 'type', ARGV[5], 'from', ARGV[6], 'payload', ARGV[7])
return done()
