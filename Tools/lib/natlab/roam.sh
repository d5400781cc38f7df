# Sourced by Tools/natlab: "roam" and "flap", a side's host changing
# networks under a live chat, as a laptop leaving Wi-Fi for mobile data.
#
# roam SIDE: the host brings up its other interface (eth1 on a second LAN
#   of the same router, 10.201.(N+2).0/24, built on first use; then eth0
#   again, and so on), moves its default route there, then takes the old
#   interface down. Its address, and so its NAT mapping, change.
# flap SIDE SECONDS: the host's interface goes down (its address and routes
#   with it) and comes back SECONDS later with the same address.
# Both print, as their last line, the CLOCK_MONOTONIC time in seconds at
# which the new address was up (for measuring recovery from it).

monotonic() { "$PYTHON" -c 'import time; print(f"{time.monotonic():.3f}")'; }

parse_roam_side() {  # parse_roam_side ARGS...: sets SIDE, ROUTER, N
  CMD="$CMD" parse_side "$@"
  local LEFT_KIND RIGHT_KIND
  # shellcheck disable=SC1090
  . "$(state_dir)/lab.env"
  local kind; [ "$SIDE" = left ] && kind=$LEFT_KIND || kind=$RIGHT_KIND
  case "$kind" in
    cone|symmetric|blocked) ;;
    *) die "$CMD: $SIDE must sit behind its own NAT router (--$SIDE cone, symmetric or blocked), not '$kind'" ;;
  esac
  ROUTER=$(router_of "$SIDE"); N=$(side_index "$SIDE")
}

# second_lan: the router's second LAN (lanb) and the host's eth1 on it.
second_lan() {
  local net="10.201.$((N + 2))" ipt=(in_ns "$ROUTER" iptables -w)
  ns_exists "$SIDE" && ip -n "$(ns "$SIDE")" link show eth1 >/dev/null 2>&1 && return
  veth "$ROUTER" lanb "$SIDE" eth1
  ip -n "$(ns "$ROUTER")" addr add "$net.1/24" dev lanb
  ip -n "$(ns "$ROUTER")" link set lanb up
  "${ipt[@]}" -A INPUT -i lanb -j ACCEPT
  "${ipt[@]}" -A FORWARD -i lanb -o wan -j ACCEPT
  "${ipt[@]}" -A FORWARD -i wan -o lanb -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
}

cmd_roam() {
  local CMD=roam SIDE ROUTER N
  parse_roam_side "$@"
  second_lan
  local old=eth0 new=eth1 net="10.201.$((N + 2))" h; h=$(ns "$SIDE")
  if ip -n "$h" -4 addr show dev eth1 | grep -q inet; then old=eth1 new=eth0 net="10.201.$N"; fi
  ip -n "$h" link set "$new" up
  ip -n "$h" addr replace "$net.2/24" dev "$new"
  ip -n "$h" route replace default via "$net.1" dev "$new"
  monotonic >"$(state_dir)/roam-$SIDE.up"
  ip -n "$h" addr flush dev "$old"
  ip -n "$h" link set "$old" down
  echo "natlab: $SIDE moved from $old to $new ($net.2)"
  cat "$(state_dir)/roam-$SIDE.up"
}

cmd_flap() {
  local CMD=flap SIDE ROUTER N seconds
  seconds="${*: -1}"
  [[ "$seconds" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "flap: the last argument must be the seconds the link stays down, got '$seconds'"
  parse_roam_side "${@:1:$#-1}"
  local dev=eth0 net="10.201.$N" h; h=$(ns "$SIDE")
  if ip -n "$h" -4 addr show dev eth1 2>/dev/null | grep -q inet; then dev=eth1 net="10.201.$((N + 2))"; fi
  ip -n "$h" link set "$dev" down
  ip -n "$h" addr flush dev "$dev"
  sleep "$seconds"
  ip -n "$h" link set "$dev" up
  ip -n "$h" addr add "$net.2/24" dev "$dev"
  ip -n "$h" route replace default via "$net.1" dev "$dev"
  echo "natlab: $SIDE's $dev was down $seconds s and is back ($net.2)"
  monotonic
}
