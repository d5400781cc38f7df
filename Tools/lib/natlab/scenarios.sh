# Sourced by Tools/natlab: named scenarios ("natlab up --scenario NAME"),
# the networks people really sit behind, beyond one NAT per side. Each
# builds its own topology on the usual public segment (pub, server and TURN
# as always); "natlab scenarios" lists them with the path a chat must take
# and why. Namespaces: pub, left, right, natl, natr as usual, and "cgn"
# (a carrier-grade NAT) where a scenario has one.
#
# Hairpinning (RFC 4787 REQ-9): a packet from inside a NAT to the NAT's own
# public address and a mapped port goes back inside, to whoever owns that
# mapping, with its source translated to the sender's mapping. Linux NAT
# does not do that for dynamic (MASQUERADE) mappings, so a router with
# hairpinning on gets an nftables table that remembers, per UDP source port
# leaving a LAN, which inside address sent it (MASQUERADE keeps the port when
# it is free, as it does here), and sends packets for its own public address
# and that port back in, translated both ways. Hairpinned packets are let
# through whatever the router's filtering (endpoint-independent filtering for
# hairpinned traffic; the peers punch both ways anyway).

readonly SCENARIOS="cgnat cgnat-symmetric cgnat-hairpin cgnat-no-hairpin same-lan subnets subnets-hairpin subnets-no-hairpin ipv6-firewall ipv6-only ipv6-to-ipv4 upnp"
readonly CGN_IP=198.18.0.3
readonly CARRIER_NET=100.64.1
readonly SERVER_IP6=2001:db8::10
readonly TURN_IP6=2001:db8::12
# The upnp scenario's router: miniupnpd maps nothing on a reserved external
# address (198.18.0.0/15 is one), so this router's WAN has a public one,
# routed only inside the lab (on-link on the public segment).
readonly UPNP_WAN_IP=44.0.0.1

# scenario_row NAME: "path|family|topology|reason" (path: host, srflx or
# relay as the joining side's "connected" event names the remote candidate
# type; a direct path may also show as prflx on one side).
scenario_row() {
  case "$1" in
    cgnat) echo "srflx|ipv4|left: cone home NAT behind a carrier NAT (100.64.1.0/24); right: its own cone NAT|both NATs in a row map endpoint-independently, so left's server-reflexive address is one every peer can punch to" ;;
    cgnat-symmetric) echo "relay|ipv4|left: symmetric home NAT behind a carrier NAT; right: its own cone NAT|the home NAT maps per destination, so the carrier NAT's mapping differs per destination too, and the cone side's filter drops what it did not ask for (as symmetric against cone one NAT deep)" ;;
    cgnat-hairpin) echo "srflx|ipv4|both behind their own cone home NAT, both home NATs behind one carrier NAT that hairpins|each peer's server-reflexive address is the carrier NAT's; it sends what is aimed at its own address back inside" ;;
    cgnat-no-hairpin) echo "relay|ipv4|as cgnat-hairpin, but the carrier NAT does not hairpin|the only address a peer can learn for the other is the carrier NAT's, which drops traffic to itself from inside; the home NATs' carrier-side addresses are never candidates" ;;
    same-lan) echo "host|ipv4|both on one LAN (10.201.1.0/24) behind one cone NAT|the host candidates reach each other on the link, the router is not involved" ;;
    subnets) echo "host|ipv4|two subnets (10.201.1.0/24, 10.201.2.0/24) behind one cone NAT that routes between them|the router routes between its LANs without NAT, so host candidates reach each other" ;;
    subnets-hairpin) echo "srflx|ipv4|two isolated subnets behind one cone NAT (no routing between them, as a guest network), hairpinning on|host candidates cannot cross, but each peer's server-reflexive address is the router's, which hairpins" ;;
    subnets-no-hairpin) echo "relay|ipv4|as subnets-hairpin, hairpinning off|host candidates cannot cross and the router drops traffic to its own address from inside" ;;
    ipv6-firewall) echo "host|ipv6|both dual-stack: IPv4 behind symmetric NATs, IPv6 global behind stateful firewalls|IPv4 alone would need the relay; the IPv6 host candidates punch through both firewalls, which let in replies to what went out" ;;
    ipv6-only) echo "host|ipv6|left IPv6-only behind a stateful firewall; right dual-stack (cone NAT, IPv6 firewall)|both have global IPv6 host candidates" ;;
    upnp) echo "srflx|ipv4|left behind a symmetric NAT whose router runs miniupnpd (PCP, NAT-PMP, UPnP IGD; WAN $UPNP_WAN_IP); right behind a cone NAT|left's router maps its port on request, endpoint-independently: the mapped address is a candidate the cone side can punch to, where plain ICE would relay" ;;
    ipv6-to-ipv4) echo "relay|ipv4|left IPv6-only behind a stateful firewall; right IPv4-only behind a cone NAT|no family in common: left reaches the dual-stack TURN server over IPv6 and gets an IPv4 relayed address (RFC 6156), which right can reach" ;;
    *) return 1 ;;
  esac
}

validate_scenario() {
  scenario_row "$1" >/dev/null || die "unknown scenario '$1' (expected one of: $SCENARIOS)"
}

# scenario_uses_ipv6 NAME: whether pub (server, TURN) needs IPv6 too.
scenario_uses_ipv6() { case "$1" in ipv6-*) return 0 ;; *) return 1 ;; esac; }

cmd_scenarios() {
  local format=text name row
  [ "${1:-}" = --json ] && format=json
  for name in $SCENARIOS; do
    row=$(scenario_row "$name")
    IFS='|' read -r path family topology reason <<<"$row"
    if [ "$format" = json ]; then
      "$PYTHON" -c 'import json,sys; print(json.dumps(dict(zip(["name","path","family","topology","reason"], sys.argv[1:]))))' \
        "$name" "$path" "$family" "$topology" "$reason"
    else
      printf '%-19s %-6s %-5s %s\n    why: %s\n' "$name" "$path" "$family" "$topology" "$reason"
    fi
  done
}

# ---------------------------------------------------------------------------
# Building blocks

# v6_on NS: IPv6 on in NS (new_ns turns it off), without duplicate address
# detection or router advertisements, so addresses work at once.
v6_on() {
  in_ns "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
    net.ipv6.conf.all.accept_ra=0 net.ipv6.conf.default.accept_ra=0 \
    net.ipv6.conf.default.disable_ipv6=0 net.ipv6.conf.all.disable_ipv6=0
}

# uplink_port NS PORT: put the upstream end of a router's WAN link on NS's
# bridge (br0 in pub, "lan" in the carrier NAT).
uplink_port() {
  local bridge=lan; [ "$1" = pub ] && bridge=br0
  ip -n "$(ns "$1")" link set "$2" master "$bridge"
  ip -n "$(ns "$1")" link set "$2" up
}

# home_router SIDE KIND UPLINK_NS WAN_IP/LEN [GATEWAY]: SIDE's host behind
# its own router, whose WAN sits on UPLINK_NS's bridge (IPv4 as build_side).
home_router() {
  local side="$1" kind="$2" up="$3" wan="$4" gw="${5:-}" i router
  i=$(side_index "$side"); router=$(router_of "$side")
  new_ns "$side"; new_ns "$router"
  veth "$router" wan "$up" "p-$router"
  uplink_port "$up" "p-$router"
  veth "$router" lan "$side" eth0
  ip -n "$(ns "$router")" addr add "$wan" dev wan
  ip -n "$(ns "$router")" addr add "10.201.$i.1/24" dev lan
  ip -n "$(ns "$router")" link set wan up
  ip -n "$(ns "$router")" link set lan up
  [ -z "$gw" ] || ip -n "$(ns "$router")" route add default via "$gw"
  ip -n "$(ns "$side")" addr add "10.201.$i.2/24" dev eth0
  ip -n "$(ns "$side")" link set eth0 up
  ip -n "$(ns "$side")" route add default via "10.201.$i.1"
  in_ns "$router" sysctl -qw net.ipv4.ip_forward=1
  router_rules "$router" "$kind"
}

# build_cgn: the carrier-grade NAT, public 198.18.0.3, its customers on a
# bridge "lan" in 100.64.1.0/24 (RFC 6598), mapping like a cone NAT
# (RFC 6888 REQ-1: endpoint-independent mapping).
build_cgn() {
  new_ns cgn
  veth cgn wan pub p-cgn
  attach_pub p-cgn
  ip -n "$(ns cgn)" link add lan type bridge
  ip -n "$(ns cgn)" addr add "$CGN_IP/24" dev wan
  ip -n "$(ns cgn)" addr add "$CARRIER_NET.1/24" dev lan
  ip -n "$(ns cgn)" link set wan up
  ip -n "$(ns cgn)" link set lan up
  in_ns cgn sysctl -qw net.ipv4.ip_forward=1
  router_rules cgn cone
}

# hairpin NS WAN_IP: hairpinning for UDP on router NS (see the header).
hairpin() {
  in_ns "$1" nft -f - <<EOF
table ip natlab_hairpin {
  map owner { type inet_service : ipv4_addr; flags dynamic,timeout; timeout 10m; }
  chain pre {
    type nat hook prerouting priority dstnat - 1; policy accept;
    iifname "lan*" meta l4proto udp ip daddr != $2 update @owner { udp sport : ip saddr }
    iifname "lan*" meta l4proto udp ip daddr $2 dnat to udp dport map @owner
  }
  chain post {
    type nat hook postrouting priority srcnat - 1; policy accept;
    oifname "lan*" ct original ip daddr $2 snat to $2
  }
}
EOF
  in_ns "$1" iptables -w -I FORWARD -i lan+ -o lan+ -m conntrack --ctstate DNAT -j ACCEPT
}

# lan2 ROUTED: the right host on a second LAN of the left router (as
# build_shared); ROUTED 0 keeps the router from routing between its LANs.
lan2() {
  veth natl lan2 right eth0
  ip -n "$(ns natl)" addr add 10.201.2.1/24 dev lan2
  ip -n "$(ns natl)" link set lan2 up
  ip -n "$(ns right)" addr add 10.201.2.2/24 dev eth0
  ip -n "$(ns right)" link set eth0 up
  ip -n "$(ns right)" route add default via 10.201.2.1
  local ipt=(in_ns natl iptables -w)
  "${ipt[@]}" -A INPUT -i lan2 -j ACCEPT
  "${ipt[@]}" -A FORWARD -i lan2 -o wan -j ACCEPT
  "${ipt[@]}" -A FORWARD -i wan -o lan2 -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
  if [ "$1" = 1 ]; then
    "${ipt[@]}" -A FORWARD -i lan -o lan2 -j ACCEPT
    "${ipt[@]}" -A FORWARD -i lan2 -o lan -j ACCEPT
  fi
}

# IPv6: pub is 2001:db8::/64 (documentation prefix, never routed outside),
# side N's LAN 2001:db8:N::/64 behind its router at 2001:db8::N.
pub_v6() {
  v6_on pub
  local a; for a in "$SERVER_IP6" 2001:db8::11 "$TURN_IP6"; do ip -n "$(ns pub)" addr add "$a/64" dev br0 nodad; done
  ip -n "$(ns pub)" -6 route add 2001:db8:1::/64 via 2001:db8::1
  ip -n "$(ns pub)" -6 route add 2001:db8:2::/64 via 2001:db8::2
}

# side_v6 SIDE: IPv6 for SIDE's host and router: a global address, routes,
# and a stateful firewall on the router (out: anything; in: only replies).
side_v6() {
  local side="$1" i router other ip6=(ip6tables -w)
  i=$(side_index "$side"); router=$(router_of "$side"); other=$((3 - i))
  v6_on "$router"; v6_on "$side"
  ip -n "$(ns "$router")" addr add "2001:db8::$i/64" dev wan nodad
  ip -n "$(ns "$router")" addr add "2001:db8:$i::1/64" dev lan nodad
  ip -n "$(ns "$router")" -6 route add "2001:db8:$other::/64" via "2001:db8::$other"
  ip -n "$(ns "$side")" addr add "2001:db8:$i::2/64" dev eth0 nodad
  ip -n "$(ns "$side")" -6 route add default via "2001:db8:$i::1"
  in_ns "$router" sysctl -qw net.ipv6.conf.all.forwarding=1
  in_ns "$router" "${ip6[@]}" -P INPUT DROP
  in_ns "$router" "${ip6[@]}" -A INPUT -i lo -j ACCEPT
  in_ns "$router" "${ip6[@]}" -A INPUT -p ipv6-icmp -j ACCEPT   # neighbour discovery
  in_ns "$router" "${ip6[@]}" -A INPUT -i lan -j ACCEPT
  in_ns "$router" "${ip6[@]}" -A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
  in_ns "$router" "${ip6[@]}" -P FORWARD DROP
  in_ns "$router" "${ip6[@]}" -A FORWARD -i lan -o wan -j ACCEPT
  in_ns "$router" "${ip6[@]}" -A FORWARD -i wan -o lan -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
}

# v6_only_side SIDE: SIDE's host and router with IPv6 only (no IPv4 at all).
v6_only_side() {
  local side="$1" router; router=$(router_of "$side")
  new_ns "$side"; new_ns "$router"
  v6_on "$side"; v6_on "$router"
  veth "$router" wan pub "p-$router"
  attach_pub "p-$router"
  veth "$router" lan "$side" eth0
  ip -n "$(ns "$router")" link set wan up
  ip -n "$(ns "$router")" link set lan up
  ip -n "$(ns "$side")" link set eth0 up
  side_v6 "$side"
}

# upnp_router: left behind a symmetric NAT router ("natl", WAN $UPNP_WAN_IP)
# running miniupnpd, as Tools/lib/natlab/upnp-gateway configures it. Unlike
# the other routers, unsolicited inbound packets are dropped in the filter
# table, not before NAT, so the ones miniupnpd maps get through (DNAT).
upnp_router() {
  local dir; dir=$(state_dir)
  [ -x /usr/sbin/miniupnpd ] || die "the upnp scenario needs miniupnpd (apt-get install miniupnpd-nftables)"
  new_ns left; new_ns natl
  veth natl wan pub p-natl
  attach_pub p-natl
  veth natl lan left eth0
  ip -n "$(ns natl)" addr add "$UPNP_WAN_IP/32" dev wan
  ip -n "$(ns natl)" addr add 10.201.1.1/24 dev lan
  ip -n "$(ns natl)" link set wan up
  ip -n "$(ns natl)" link set lan up
  ip -n "$(ns natl)" route add "$PUB_NET.0/24" dev wan src "$UPNP_WAN_IP"
  ip -n "$(ns pub)" route add "$UPNP_WAN_IP/32" dev br0
  ip -n "$(ns left)" addr add 10.201.1.2/24 dev eth0
  ip -n "$(ns left)" link set eth0 up
  ip -n "$(ns left)" route add default via 10.201.1.1
  in_ns natl sysctl -qw net.ipv4.ip_forward=1
  local ipt=(in_ns natl iptables -w)
  "${ipt[@]}" -P INPUT DROP
  "${ipt[@]}" -A INPUT -i lo -j ACCEPT
  "${ipt[@]}" -A INPUT -i lan -j ACCEPT
  "${ipt[@]}" -A INPUT -i wan -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
  "${ipt[@]}" -P FORWARD DROP
  "${ipt[@]}" -A FORWARD -i lan -o wan -j ACCEPT
  "${ipt[@]}" -A FORWARD -i wan -o lan -m conntrack --ctstate ESTABLISHED,RELATED,DNAT -j ACCEPT
  "${ipt[@]}" -t nat -A POSTROUTING -o wan -j MASQUERADE --random-fully
  in_ns natl nft -f - <<'NFT'
table inet filter {
  chain miniupnpd { }
  chain prerouting_miniupnpd { }
  chain postrouting_miniupnpd { }
  chain forward { type filter hook forward priority 0; policy accept; jump miniupnpd; }
  chain prerouting { type nat hook prerouting priority -100; policy accept; jump prerouting_miniupnpd; }
  chain postrouting { type nat hook postrouting priority 100; policy accept; jump postrouting_miniupnpd; }
}
NFT
  cat >"$dir/miniupnpd.conf" <<CONF
ext_ifname=wan
listening_ip=lan
enable_natpmp=yes
enable_upnp=yes
secure_mode=yes
system_uptime=yes
min_lifetime=60
uuid=3d3cec3a-8cf0-11e0-98ee-001a6bd2d07c
allow 1024-65535 10.201.1.0/24 1024-65535
deny 0-65535 0.0.0.0/0 0-65535
CONF
  spawn_daemon ip netns exec "$(ns natl)" /usr/sbin/miniupnpd -f "$dir/miniupnpd.conf" -d -P "$dir/miniupnpd.pidfile" \
    >"$dir/miniupnpd.log" 2>&1 </dev/null
  echo $! >"$dir/miniupnpd-natlab.pid"   # "down" stops it with the lab's services
  local _
  for _ in $(seq 100); do
    grep -q "Listening for NAT-PMP/PCP" "$dir/miniupnpd.log" 2>/dev/null && return
    sleep 0.1
  done
  die "miniupnpd did not start: $(tail -n 20 "$dir/miniupnpd.log")"
}

# ---------------------------------------------------------------------------

# build_scenario NAME: the topology of NAME (pub already exists).
build_scenario() {
  case "$1" in
    cgnat|cgnat-symmetric)
      build_cgn
      if [ "$1" = cgnat ]; then home_router left cone cgn "$CARRIER_NET.2/24" "$CARRIER_NET.1"
      else home_router left symmetric cgn "$CARRIER_NET.2/24" "$CARRIER_NET.1"; fi
      build_side right cone ;;
    cgnat-hairpin|cgnat-no-hairpin)
      build_cgn
      home_router left cone cgn "$CARRIER_NET.2/24" "$CARRIER_NET.1"
      home_router right cone cgn "$CARRIER_NET.3/24" "$CARRIER_NET.1"
      [ "$1" = cgnat-no-hairpin ] || hairpin cgn "$CGN_IP" ;;
    same-lan)
      new_ns left; new_ns right; new_ns natl
      veth natl wan pub p-natl
      attach_pub p-natl
      ip -n "$(ns natl)" link add lan type bridge
      ip -n "$(ns natl)" addr add "$PUB_NET.1/24" dev wan
      ip -n "$(ns natl)" addr add 10.201.1.1/24 dev lan
      ip -n "$(ns natl)" link set wan up
      ip -n "$(ns natl)" link set lan up
      local h n=2
      for h in left right; do
        veth natl "l-$h" "$h" eth0
        ip -n "$(ns natl)" link set "l-$h" master lan
        ip -n "$(ns natl)" link set "l-$h" up
        ip -n "$(ns "$h")" addr add "10.201.1.$n/24" dev eth0
        ip -n "$(ns "$h")" link set eth0 up
        ip -n "$(ns "$h")" route add default via 10.201.1.1
        n=3
      done
      in_ns natl sysctl -qw net.ipv4.ip_forward=1
      router_rules natl cone
      # A switch passes traffic between its ports (with br_netfilter loaded,
      # bridged packets would meet the router's FORWARD policy).
      in_ns natl iptables -w -A FORWARD -i lan -o lan -j ACCEPT ;;
    subnets|subnets-hairpin|subnets-no-hairpin)
      build_side left cone
      new_ns right
      if [ "$1" = subnets ]; then lan2 1; else lan2 0; fi
      [ "$1" != subnets-hairpin ] || hairpin natl "$PUB_NET.1" ;;
    ipv6-firewall)
      pub_v6
      build_side left symmetric; side_v6 left
      build_side right symmetric; side_v6 right ;;
    ipv6-only)
      pub_v6
      v6_only_side left
      build_side right cone; side_v6 right ;;
    upnp)
      upnp_router
      build_side right cone
      ip -n "$(ns natr)" route add "$UPNP_WAN_IP/32" dev wan ;;
    ipv6-to-ipv4)
      pub_v6
      v6_only_side left
      build_side right cone ;;
  esac
}
