# `Tools/bench cluster`: for 1, 2, 3 instances of `chatcli serve --redis`
# sharing one redis-server, all on this machine: idle WebSockets (RSS per
# instance, Redis memory), Redis commands per pairing and per relayed
# message, and the REST mix through HAProxy.
# Sourced by Tools/bench (uses its helpers: free_port, wait_for_http,
# cpu_seconds, BIN, PY, WORK, THREADS, CONNS, DURATION).

CLUSTER_PIDS=()

cluster_stop() {
  local pid
  for pid in "${CLUSTER_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${CLUSTER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  CLUSTER_PIDS=()
}

# cluster_run N: one measurement with N instances; appends one JSON line.
cluster_run() {
  local n=$1 dir="$WORK/cluster$1"
  mkdir -p "$dir"
  local redis_port lb_port
  redis_port=$(free_port tcp)
  lb_port=$(free_port tcp)
  # Production-like persistence: AOF, fsync once a second.
  redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly yes \
    --appendfsync everysec >"$dir/redis.log" 2>&1 &
  local redis_pid=$!
  CLUSTER_PIDS+=("$redis_pid")
  for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  local ports=() pids=() i
  for ((i = 0; i < n; i++)); do
    local port stun
    port=$(free_port tcp)
    stun=$(free_port udp2)
    "$BIN" serve --host 127.0.0.1 --port "$port" --stun-port "$stun" --redis "redis://127.0.0.1:$redis_port" \
      --trusted-proxy 127.0.0.1 --rate-limit 1000000 2>"$dir/instance$i.log" &
    pids+=($!)
    CLUSTER_PIDS+=($!)
    ports+=("$port")
    wait_for_http "http://127.0.0.1:$port/healthz" 2>/dev/null || die "instance $i did not come up (log: $(tail -2 "$dir/instance$i.log"))"
  done
  {
    printf 'global\n    maxconn 8000\ndefaults\n    mode http\n    timeout connect 2s\n    timeout client 60s\n'
    printf '    timeout server 60s\n    timeout tunnel 1h\n    option forwardfor\nfrontend chatcli\n'
    printf '    bind 127.0.0.1:%s\n    default_backend instances\nbackend instances\n    balance roundrobin\n' "$lb_port"
    printf '    option httpchk GET /healthz\n    http-check expect status 200\n'
    for ((i = 0; i < n; i++)); do printf '    server s%d 127.0.0.1:%s check inter 1s\n' "$i" "${ports[$i]}"; done
  } >"$dir/haproxy.cfg"
  haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 &
  local lb_pid=$!
  CLUSTER_PIDS+=("$lb_pid")
  wait_for_http "http://127.0.0.1:$lb_port/healthz" 2>/dev/null || die "haproxy did not come up ($(tail -2 "$dir/haproxy.log"))"

  # Idle WebSockets first, on fresh instances, as `Tools/bench server` does
  # for one: spread over the instances directly (HAProxy would add its own
  # two sockets per connection), with Redis's memory before and during.
  say "==> cluster of $n: $WS_COUNT idle WebSockets spread over the instances"
  local idle_args=() raw
  for i in "${!pids[@]}"; do idle_args+=(--url "ws://127.0.0.1:${ports[$i]}/" --pid "${pids[$i]}"); done
  raw=$("$PY" "$BENCH_LIB/ws_idle.py" "${idle_args[@]}" --redis-port "$redis_port" --connections "$WS_COUNT" \
      2> >(if [ "$JSON" = 1 ]; then cat >/dev/null; else cat >&2; fi)) || true
  raw=$(tail -1 <<<"$raw")
  [[ "$raw" == "{"* ]] || die "idle WebSocket client failed without a result"
  "$PY" "$BENCH_LIB/cluster_report.py" idle "$n" "$raw" >>"$WORK/cluster_idle.jsonl"

  # Redis commands per pairing and per relayed message (INFO commandstats
  # before and after), between the first and the last instance.
  say "==> cluster of $n: Redis commands per pairing and per relayed message"
  local urls=()
  for i in "${!ports[@]}"; do urls+=(--url "http://127.0.0.1:${ports[$i]}"); done
  "$PY" "$BENCH_LIB/cluster_ops.py" --redis-port "$redis_port" "${urls[@]}" --pairings "$PAIRINGS" --relays "$RELAYS" \
    2> >(if [ "$JSON" = 1 ]; then cat >/dev/null; else cat >&2; fi) >>"$WORK/cluster_ops.jsonl" \
    || die "the Redis operations count failed"

  redis-cli -p "$redis_port" config resetstat >/dev/null

  say "==> cluster of $n: wrk -t$THREADS -c$CONNS -d${DURATION}s through HAProxy"
  local cpu0=() cpu1=() r0 r1 h0 h1
  for i in "${!pids[@]}"; do cpu0+=("$(cpu_seconds "${pids[$i]}")"); done
  r0=$(cpu_seconds "$redis_pid"); h0=$(cpu_seconds "$lb_pid")
  wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --timeout 5s --latency \
    -s "$BENCH_LIB/rest_mix.lua" "http://127.0.0.1:$lb_port" -- "$THREADS" >"$dir/wrk.out" 2>&1 \
    || { cat "$dir/wrk.out" >&2; die "wrk failed"; }
  for i in "${!pids[@]}"; do cpu1+=("$(cpu_seconds "${pids[$i]}")"); done
  r1=$(cpu_seconds "$redis_pid"); h1=$(cpu_seconds "$lb_pid")
  local evals rss
  evals=$(redis-cli -p "$redis_port" info commandstats | awk -F'[=,]' '/^cmdstat_evalsha:/ { print $2 }')
  rss=$(for p in "${pids[@]}"; do rss_kib "$p"; done | awk '{ s += $1 } END { print s }')
  local result
  result=$(grep '^BENCH_RESULT ' "$dir/wrk.out" | sed 's/^BENCH_RESULT //') || { cat "$dir/wrk.out" >&2; die "wrk printed no result"; }
  local instance_cpu=0
  for i in "${!pids[@]}"; do instance_cpu=$(awk -v s="$instance_cpu" -v a="${cpu0[$i]}" -v b="${cpu1[$i]}" 'BEGIN { printf "%.2f", s + b - a }'); done
  "$PY" "$BENCH_LIB/cluster_report.py" row "$n" "$instance_cpu" "$(awk -v a="$r0" -v b="$r1" 'BEGIN { print b - a }')" \
    "$(awk -v a="$h0" -v b="$h1" 'BEGIN { print b - a }')" "${evals:-0}" "$rss" "$result" >>"$WORK/cluster.jsonl"
  cluster_stop
}

cmd_cluster() {
  JSON=0 DURATION=10 THREADS=2 CONNS=50 WS_COUNT=10000 PAIRINGS=200 RELAYS=2000
  local counts="1 2 3"
  while (($#)); do
    case "$1" in
      --json) JSON=1 ;;
      --instances) counts=${2:?}; shift ;;
      --duration) DURATION=${2:?}; shift ;;
      --threads) THREADS=${2:?}; shift ;;
      --connections) CONNS=${2:?}; shift ;;
      --ws) WS_COUNT=${2:?}; shift ;;
      --pairings) PAIRINGS=${2:?}; shift ;;
      --relays) RELAYS=${2:?}; shift ;;
      -h|--help) usage; exit 0 ;;
      *) usage >&2; die "unknown option $1" ;;
    esac
    shift
  done
  ensure_wrk
  command -v redis-server >/dev/null && command -v haproxy >/dev/null || die "needs redis-server and haproxy (apt packages redis-server haproxy)"
  if [ "$JSON" = 1 ]; then ensure_python_venv >&2; else ensure_python_venv; fi
  PY="$PWD/.build/venv/bin/python"
  say "==> swift build -c release --product chatcli"
  if [ "$JSON" = 1 ]; then swift build -c release --product chatcli >&2; else swift build -c release --product chatcli; fi
  BIN="$PWD/.build/release/chatcli"
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/chatcli-bench.XXXXXX")
  trap 'cluster_stop; rm -rf "$WORK"' EXIT
  trap 'exit 130' INT TERM
  : >"$WORK/cluster.jsonl"
  : >"$WORK/cluster_idle.jsonl"
  : >"$WORK/cluster_ops.jsonl"
  local n
  for n in $counts; do cluster_run "$n"; done
  if [ "$JSON" = 1 ]; then
    cat "$WORK/cluster.jsonl" "$WORK/cluster_idle.jsonl" "$WORK/cluster_ops.jsonl"
  else
    "$PY" "$BENCH_LIB/cluster_report.py" table <"$WORK/cluster.jsonl"
    echo
    "$PY" "$BENCH_LIB/cluster_report.py" idle-table <"$WORK/cluster_idle.jsonl"
    echo
    "$PY" "$BENCH_LIB/cluster_report.py" ops-table <"$WORK/cluster_ops.jsonl"
  fi
}
