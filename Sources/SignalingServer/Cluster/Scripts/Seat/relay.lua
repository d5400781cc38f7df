local m = redis.call('HMGET', P .. 'member:' .. M, 'room', 'seat', 'lost', 'g')
if not m[1] then
  emit(M, 'ev', 'error', 'code', 'not_in_room')
  return done()
end
if m[4] then
  -- A group room: to the member ARGV[8] names only, from the sender's member id.
  local gk = P .. 'gseats:' .. m[1]
  if redis.call('HGET', gk, m[2]) ~= M then
    redis.call('DEL', P .. 'member:' .. M)
    emit(M, 'ev', 'error', 'code', 'not_in_room')
    return done()
  end
  local to = ARGV[8] or ''
  if to == '' then
    emit(M, 'ev', 'error', 'code', 'missing_to')
    return done()
  end
  local holder = redis.call('HGET', gk, to)
  local code = liveRoom(m[1])
  local known = holder or (code and redis.call('HEXISTS', P .. 'code:' .. code, 'i:' .. to) == 1)
  if to == m[2] or not known then
    emit(M, 'ev', 'error', 'code', 'unknown_member')
    return done()
  end
  if not holder then
    emit(M, 'ev', 'error', 'code', 'no_peer')
    return done()
  end
  emit(holder, 'ev', 'relay', 'room', m[1], 'type', ARGV[5], 'from', m[2], 'payload', ARGV[7])
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
