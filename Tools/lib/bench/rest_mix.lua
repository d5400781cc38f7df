-- wrk script for `Tools/bench server`: the create -> accept -> check mix of
-- WireProtocol §1 over keep-alive connections, one request in flight per
-- connection (no pipelining).
--
-- Usage: wrk -tT -cC -dD -s rest_mix.lua URL -- T
--
-- Every code is created, then accepted once, then checked once, so no accept
-- ever misses (a miss would be a 404 and feed the server's rate limiter).
-- The catch: wrk's Lua never says which connection (or which request) a
-- response belongs to, and an accept must not leave before its create has
-- been answered. So each create in flight gets a "slot" that it carries in
-- its `expiresInSeconds` (60 + 1000 * slot); the server echoes that back as
-- `exp = now + expiresInSeconds`, and `exp - now` tells which create was
-- answered. Only then does its code queue an accept; issuing the accept
-- queues the check (which answers 200 if the accept has landed by then, 204
-- if it is still in flight: both are successes, counted separately).
-- Each wrk thread has its own Lua state; `setup` gives each a thread id and
-- each thread its own slice of the 10^6 code space.

local threads = {}
local thread_count = 0

function setup(thread)
  thread:set("tid", thread_count)
  thread_count = thread_count + 1
  table.insert(threads, thread)
end

local SLOTS = 86 -- expiresInSeconds must stay within 60...86400

-- Per-thread state (also valid in the main state, where wrk calls `request`
-- once to check the script before any `init`).
local function reset(nthreads)
  local span = math.floor(1000000 / nthreads)
  base = (tid or 0) * span
  span_size = span
  counter = 0
  queue, head, tail = {}, 1, 0
  slots, free = {}, {}
  for s = SLOTS - 1, 0, -1 do free[#free + 1] = s end
  issued_create, issued_accept, issued_check, issued_filler = 0, 0, 0, 0
  st201, st200, st204, st_other, unmatched = 0, 0, 0, 0, 0
  last_error = ""
end
reset(1)

function init(args)
  reset(tonumber(args[1]) or 1)
end

local headers = { ["Content-Type"] = "application/json" }

local function post(path, body)
  return wrk.format("POST", path, headers, body)
end

local function push(item)
  tail = tail + 1
  queue[tail] = item
end

local function client1(code) return "bench-creator-" .. code end
local function client2(code) return "bench-acceptor-" .. code end

function request()
  if head <= tail then
    local item = queue[head]
    queue[head] = nil
    head = head + 1
    if item.op == "accept" then
      issued_accept = issued_accept + 1
      push({ op = "check", code = item.code })
      return post("/api/rooms/accept", '{"joinid":"' .. item.code .. '","client2":"' .. client2(item.code) .. '"}')
    end
    issued_check = issued_check + 1
    return post("/api/rooms/check", '{"joinid":"' .. item.code .. '","client1":"' .. client1(item.code) .. '"}')
  end
  local slot = table.remove(free)
  if slot == nil then
    -- Only with more than SLOTS connections per thread (Tools/bench prevents it).
    issued_filler = issued_filler + 1
    return wrk.format("GET", "/healthz")
  end
  local code = string.format("%06d", base + counter % span_size)
  counter = counter + 1
  slots[slot] = code
  issued_create = issued_create + 1
  return post("/api/rooms", '{"joinid":"' .. code .. '","expiresInSeconds":' .. (60 + 1000 * slot)
    .. ',"client1":"' .. client1(code) .. '"}')
end

-- Seconds since 1970 for a UTC civil date (Howard Hinnant's days_from_civil).
local function epoch(y, m, d, hh, mm, ss)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  local days = era * 146097 + doe - 719468
  return days * 86400 + hh * 3600 + mm * 60 + ss
end

function response(status, _, body)
  if status == 201 then
    st201 = st201 + 1
    local y, mo, d, h, mi, s = body:match('"exp":"(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)')
    if y == nil then
      unmatched = unmatched + 1
      return
    end
    local exp = epoch(tonumber(y), tonumber(mo), tonumber(d), tonumber(h), tonumber(mi), tonumber(s))
    local slot = math.floor((exp - os.time() - 60) / 1000 + 0.5)
    local code = slots[slot]
    if code == nil then
      unmatched = unmatched + 1
      return
    end
    slots[slot] = nil
    free[#free + 1] = slot
    push({ op = "accept", code = code })
  elseif status == 200 then
    st200 = st200 + 1
  elseif status == 204 then
    st204 = st204 + 1
  else
    st_other = st_other + 1
    if last_error == "" then
      last_error = status .. " " .. string.sub(body or "", 1, 120)
    end
  end
end

local function get_number(thread, name)
  return tonumber(thread:get(name)) or 0
end

function done(summary, latency, _)
  local total = {}
  local names = { "issued_create", "issued_accept", "issued_check", "issued_filler",
    "st201", "st200", "st204", "st_other", "unmatched" }
  for _, n in ipairs(names) do total[n] = 0 end
  local first_error = ""
  for _, thread in ipairs(threads) do
    for _, n in ipairs(names) do total[n] = total[n] + get_number(thread, n) end
    local e = thread:get("last_error")
    if first_error == "" and e ~= nil and e ~= "" then first_error = e end
  end
  local e = summary.errors
  local parts = {
    string.format('"requests":%d', summary.requests),
    string.format('"duration_us":%d', summary.duration),
    string.format('"bytes":%d', summary.bytes),
    string.format('"p50_us":%d', latency:percentile(50)),
    string.format('"p90_us":%d', latency:percentile(90)),
    string.format('"p99_us":%d', latency:percentile(99)),
    string.format('"max_us":%d', latency.max),
    string.format('"mean_us":%.1f', latency.mean),
    string.format('"err_connect":%d,"err_read":%d,"err_write":%d,"err_status":%d,"err_timeout":%d',
      e.connect, e.read, e.write, e.status, e.timeout),
  }
  for _, n in ipairs(names) do parts[#parts + 1] = string.format('"%s":%d', n, total[n]) end
  local escaped = first_error:gsub('[\\"]', "\\%0"):gsub("%c", " ")
  parts[#parts + 1] = '"first_error":"' .. escaped .. '"'
  io.write("BENCH_RESULT {" .. table.concat(parts, ",") .. "}\n")
end
