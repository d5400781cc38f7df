# Sourced by Tools/natlab: the "serve", "block" and "unblock" commands (see
# the header of Tools/natlab for what they do).

# wait_for WHAT TRIES COMMAND...: run COMMAND every 0.1 s until it succeeds.
wait_for() {
  local what="$1" tries="$2"; shift 2
  for _ in $(seq "$tries"); do "$@" 2>/dev/null && return 0; sleep 0.1; done
  note "$what did not come up"
  return 1
}

tcp_open() { ip netns exec "$(ns pub)" bash -c "exec 3<>/dev/tcp/$1/$2"; }

# stop_service NAME: end a process "serve" started (by its PID file), if any.
stop_service() {
  local f pid; f="$(state_dir)/$1-natlab.pid"
  [ -f "$f" ] || return 0
  pid=$(cat "$f"); rm -f "$f"
  grep -q natlab "/proc/$pid/cmdline" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

# lab_ipv6: whether the lab's scenario gives pub IPv6 (server and TURN
# then listen on both families; coturn moves to port 3490, since the chat
# server's STUN responder takes 3478 on every address).
lab_ipv6() {
  local SCENARIO=""
  # shellcheck disable=SC1090
  . "$(state_dir)/lab.env"
  [ -n "$SCENARIO" ] && scenario_uses_ipv6 "$SCENARIO"
}
turn_port() { if lab_ipv6; then echo 3490; else echo "$TURN_PORT"; fi; }

start_coturn() {
  local dir secret port; dir=$(state_dir); port=$(turn_port)
  command -v turnserver >/dev/null || die "serve: coturn's 'turnserver' is missing (apt-get install coturn), or use --no-turn"
  secret=$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')
  # The secret goes to files only (0600), never on a command line.
  (
    umask 077
    printf '%s' "$secret" >"$dir/turn.secret"
    cat >"$dir/turnserver.conf" <<EOF
listening-ip=$TURN_IP
relay-ip=$TURN_IP
$(lab_ipv6 && printf 'listening-ip=%s\nrelay-ip=%s\n' "$TURN_IP6" "$TURN_IP6")
listening-port=$port
min-port=49152
max-port=65535
use-auth-secret
static-auth-secret=$secret
realm=natlab
no-cli
no-tls
no-dtls
no-rfc5780
log-file=$dir/turn.log
simple-log
no-stdout-log
pidfile=$dir/turnserver.pidfile
userdb=$dir/turndb
EOF
  )
  spawn_daemon ip netns exec "$(ns pub)" turnserver -c "$dir/turnserver.conf" >"$dir/turn.out" 2>&1 </dev/null
  echo $! >"$dir/turn-natlab.pid"
  wait_for "coturn on $TURN_IP:$port" 100 tcp_open "$TURN_IP" "$port" \
    || die "serve: coturn did not start: $(tail -n 20 "$dir/turn.log" "$dir/turn.out" 2>/dev/null)"
}

start_chat_server() {
  local chatcli="$1" turn="$2" dir port host="$SERVER_IP"; dir=$(state_dir); port=$(turn_port)
  lab_ipv6 && host="::"
  local args=(serve --host "$host" --port "$HTTP_PORT" --stun-port "$STUN_PORT" --db "$dir/rooms.db")
  if [ "$turn" = 1 ]; then
    args+=(--turn-url "turn:$TURN_IP:$port?transport=udp" --turn-url "turn:$TURN_IP:$port?transport=tcp")
    lab_ipv6 && args+=(--turn-url "turn:[$TURN_IP6]:$port?transport=udp" --turn-url "turn:[$TURN_IP6]:$port?transport=tcp")
    args+=(--turn-secret-file "$dir/turn.secret")
  else
    args+=(--no-turn)   # no relay at all: chatcli serve runs its own unless told not to
  fi
  rm -f "$dir/rooms.db"*
  spawn_daemon ip netns exec "$(ns pub)" "$chatcli" "${args[@]}" >"$dir/server.log" 2>&1 </dev/null
  echo $! >"$dir/server-natlab.pid"
  wait_for "chatcli serve" 150 grep -q listening "$dir/server.log" \
    || die "serve: chatcli serve did not start: $(tail -n 20 "$dir/server.log")"
}

cmd_serve() {
  local chatcli="${CHATCLI_BIN:-$REPO_ROOT/.build/debug/chatcli}" turn=1
  while [ $# -gt 0 ]; do
    case "$1" in
      --prefix) PREFIX="${2:?--prefix needs a name}"; shift 2 ;;
      --chatcli) chatcli="${2:?--chatcli needs a path}"; shift 2 ;;
      --no-turn) turn=0; shift ;;
      *) die "serve: unknown argument '$1'" ;;
    esac
  done
  validate_prefix
  [ -f "$(state_dir)/lab.env" ] || die "serve: no lab '$PREFIX' is up (run 'natlab up' first)"
  [ -x "$chatcli" ] || die "serve: no chatcli binary at '$chatcli' (build it, or pass --chatcli PATH)"
  stop_service server; stop_service turn
  rm -f "$(state_dir)/turn.secret" "$(state_dir)/turnserver.conf"
  [ "$turn" = 1 ] && start_coturn
  start_chat_server "$chatcli" "$turn"
  echo "natlab: chat server http://$SERVER_IP:$HTTP_PORT (STUN $SERVER_IP:$STUN_PORT and :$((STUN_PORT + 1)))"
  lab_ipv6 && echo "natlab: chat server also on http://[$SERVER_IP6]:$HTTP_PORT"
  [ "$turn" = 0 ] || echo "natlab: coturn turn:$TURN_IP:$(turn_port)?transport=udp and ?transport=tcp (realm natlab)"
  [ "$turn" = 0 ] || ! lab_ipv6 || echo "natlab: coturn also on turn:[$TURN_IP6]:$(turn_port)"
}

# The side's port on the public bridge: its router's WAN link, or the host's
# own link for KIND none.
bridge_port_of() {
  local LEFT_KIND RIGHT_KIND kind
  # shellcheck disable=SC1090
  . "$(state_dir)/lab.env"
  [ "$1" = left ] && kind=$LEFT_KIND || kind=$RIGHT_KIND
  local port; if [ "$kind" = none ]; then port="p-$1"; else port="p-$(router_of "$1")"; fi
  # Some scenarios put a side behind the carrier NAT or the other side's router.
  ip -n "$(ns pub)" link show "$port" >/dev/null 2>&1 \
    || die "block: $1 has no link of its own on the public segment in this lab (scenario $kind)"
  echo "$port"
}

block_table() { echo "natlab_block_$1"; }

parse_side() {  # sets SIDE; accepts --prefix
  SIDE=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --prefix) PREFIX="${2:?--prefix needs a name}"; shift 2 ;;
      left|right) SIDE="$1"; shift ;;
      *) die "$CMD: expected SIDE left or right, got '$1'" ;;
    esac
  done
  [ -n "$SIDE" ] || die "$CMD: missing SIDE (left or right)"
  validate_prefix
  [ -f "$(state_dir)/lab.env" ] || die "$CMD: no lab '$PREFIX' is up"
}

cmd_block() {
  CMD=block parse_side "$@"
  local port table; port=$(bridge_port_of "$SIDE"); table=$(block_table "$SIDE")
  command -v nft >/dev/null || die "block: the 'nft' command (nftables) is missing"
  # Bridge hooks: input (to pub itself: server, TURN), forward (to the other
  # side), output (from pub). Replacing the table makes "block" idempotent.
  ip netns exec "$(ns pub)" nft -f - <<EOF
table bridge $table
delete table bridge $table
table bridge $table {
  chain input { type filter hook input priority 0; iifname "$port" meta l4proto udp drop; }
  chain forward { type filter hook forward priority 0; iifname "$port" meta l4proto udp drop; oifname "$port" meta l4proto udp drop; }
  chain output { type filter hook output priority 0; oifname "$port" meta l4proto udp drop; }
}
EOF
  echo "natlab: UDP to and from $SIDE is blocked"
}

cmd_unblock() {
  CMD=unblock parse_side "$@"
  ip netns exec "$(ns pub)" nft delete table bridge "$(block_table "$SIDE")" 2>/dev/null || true
  echo "natlab: UDP to and from $SIDE flows again"
}

block_state() {  # block_state SIDE -> blocked | open
  if ip netns exec "$(ns pub)" nft list table bridge "$(block_table "$1")" >/dev/null 2>&1; then echo blocked; else echo open; fi
}
