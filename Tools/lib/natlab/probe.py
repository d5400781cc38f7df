#!/usr/bin/env python3
"""UDP/TCP probes for `Tools/natlab selftest`.

Subcommands (each run inside a lab namespace with `natlab exec`):

  echo IP:PORT...      STUN-like reflector: answers "PROBE tok" with "OBS ip port tok"
                       (the source address it saw). "UNSOLICITED port tok" makes it send
                       "UNSOL tok" to the sender from its socket on that port (same IP), after
                       an "UNSOLACK tok" from the socket that got the request. It also
                       accepts TCP on the first address and answers "OK".
  stun                 Binds one UDP port, asks each --server for the observed address,
                       optionally asks for an unsolicited packet; prints JSON.
  rtt                  Sends --count probes to one server; prints JSON with the fraction
                       answered and the median round trip in ms.
  punch                Learns its mapped address from --stun, publishes it in --me (a file),
                       waits for the peer's file, then sends to the peer for --duration
                       seconds, counting what arrives; prints JSON.
  tcp                  Connects to --server over TCP; prints JSON {"ok": bool}.
  refused              Sends UDP to --target from a connected socket and reports whether an
                       ICMP port unreachable came back (Linux turns it into ECONNREFUSED);
                       prints JSON {"refused": bool}.
  turn                 Takes the TURN URL and REST credentials from the chat server's
                       /api/ice-servers (--api), allocates over --transport udp or tcp
                       (RFC 8656, long-term credentials), permits --permit IP, publishes the
                       relayed address in --me, and waits --duration seconds for a Data
                       indication; prints JSON {"relayed", "mapped", "data_from"}.
  spray                Sends "PING" over UDP to the address in --target-file (waiting for the
                       file) every 50 ms for --duration seconds.

Everything but TURN is plain text over UDP so a failure is easy to read in tcpdump.
"""

import argparse
import hashlib
import hmac
import json
import os
import select
import socket
import statistics
import struct
import sys
import time
import urllib.request


def addr(text):
    host, _, port = text.rpartition(":")
    return host, int(port)


def fmt(address):
    return f"{address[0]}:{address[1]}"


# --- echo ------------------------------------------------------------------


def cmd_echo(args):
    socks = {}
    for text in args.bind:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(addr(text))
        socks[s.getsockname()] = s
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(addr(args.bind[0]))
    tcp.listen(16)
    if args.ready:
        with open(args.ready, "w") as f:
            f.write("ready\n")
    everything = list(socks.values()) + [tcp]
    while True:
        readable, _, _ = select.select(everything, [], [])
        for s in readable:
            if s is tcp:
                conn, _ = tcp.accept()
                try:
                    conn.sendall(b"OK\n")
                finally:
                    conn.close()
                continue
            data, peer = s.recvfrom(2048)
            words = data.decode(errors="replace").split()
            local = s.getsockname()
            if len(words) == 2 and words[0] == "PROBE":
                s.sendto(f"OBS {peer[0]} {peer[1]} {words[1]}".encode(), peer)
            elif len(words) == 3 and words[0] == "UNSOLICITED":
                s.sendto(f"UNSOLACK {words[2]}".encode(), peer)
                other = socks.get((local[0], int(words[1])))
                if other is not None:
                    for _ in range(3):
                        other.sendto(f"UNSOL {words[2]}".encode(), peer)


# --- client helpers ----------------------------------------------------------


def udp_socket(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    return s


def ask(s, server, message, want, timeout, tries=3):
    """Send `message` to `server` until a reply starting with `want` arrives; returns its words."""
    for _ in range(tries):
        s.sendto(message.encode(), server)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            readable, _, _ = select.select([s], [], [], left)
            if not readable:
                break
            data, _ = s.recvfrom(2048)
            words = data.decode(errors="replace").split()
            if words and words[0] == want and words[-1] == message.split()[-1]:
                return words
    return None


def observe(s, server, timeout):
    token = os.urandom(4).hex()
    words = ask(s, server, f"PROBE {token}", "OBS", timeout)
    return f"{words[1]}:{words[2]}" if words else None


# --- stun ------------------------------------------------------------------


def cmd_stun(args):
    s = udp_socket(args.bind)
    result = {"local_port": s.getsockname()[1], "mapped": {}}
    for text in args.server:
        result["mapped"][text] = observe(s, addr(text), args.timeout)
    if args.unsolicited_port:
        token = os.urandom(4).hex()
        server = addr(args.server[0])
        ack = ask(s, server, f"UNSOLICITED {args.unsolicited_port} {token}", "UNSOLACK", args.timeout)
        got = False
        deadline = time.monotonic() + args.timeout * 2
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            readable, _, _ = select.select([s], [], [], left)
            if not readable:
                break
            data, _ = s.recvfrom(2048)
            if data.decode(errors="replace").split() == ["UNSOL", token]:
                got = True
        result["unsolicited_request_acked"] = ack is not None
        result["unsolicited_received"] = got
    print(json.dumps(result))


# --- rtt -------------------------------------------------------------------


def cmd_rtt(args):
    s = udp_socket(0)
    server = addr(args.server)
    sent = {}
    rtts = []
    for i in range(args.count):
        token = f"{i:06d}"
        sent[token] = time.monotonic()
        s.sendto(f"PROBE {token}".encode(), server)
        time.sleep(args.interval)
        drain(s, sent, rtts, 0)
    drain(s, sent, rtts, args.timeout)
    result = {
        "sent": args.count,
        "received": len(rtts),
        "fraction": len(rtts) / args.count,
        "median_ms": round(statistics.median(rtts) * 1000, 1) if rtts else None,
        "min_ms": round(min(rtts) * 1000, 1) if rtts else None,
    }
    print(json.dumps(result))


def drain(s, sent, rtts, wait):
    deadline = time.monotonic() + wait
    while True:
        readable, _, _ = select.select([s], [], [], max(0.0, deadline - time.monotonic()))
        if not readable:
            return
        data, _ = s.recvfrom(2048)
        words = data.decode(errors="replace").split()
        if len(words) == 4 and words[0] == "OBS" and words[3] in sent:
            rtts.append(time.monotonic() - sent.pop(words[3]))


# --- punch -----------------------------------------------------------------


def cmd_punch(args):
    s = udp_socket(args.bind)
    mapped = observe(s, addr(args.stun), args.timeout)
    result = {"mapped": mapped, "peer": None, "received": 0, "from": []}
    if mapped is None:
        print(json.dumps(result))
        return
    tmp = args.me + ".tmp"
    with open(tmp, "w") as f:
        f.write(mapped)
    os.rename(tmp, args.me)
    deadline = time.monotonic() + 15
    while not os.path.exists(args.peer):
        if time.monotonic() > deadline:
            print(json.dumps(result))
            return
        time.sleep(0.02)
    with open(args.peer) as f:
        peer = addr(f.read().strip())
    result["peer"] = fmt(peer)
    senders = set()
    end = time.monotonic() + args.duration
    next_send = 0.0
    while True:
        now = time.monotonic()
        if now >= end:
            break
        if now >= next_send:
            s.sendto(b"PUNCH " + args.name.encode(), peer)
            next_send = now + 0.05
        readable, _, _ = select.select([s], [], [], max(0.0, min(next_send, end) - now))
        if readable:
            data, source = s.recvfrom(2048)
            if data.startswith(b"PUNCH "):
                result["received"] += 1
                senders.add(fmt(source))
    result["from"] = sorted(senders)
    print(json.dumps(result))


# --- tcp -------------------------------------------------------------------


def cmd_tcp(args):
    ok = False
    try:
        with socket.create_connection(addr(args.server), timeout=args.timeout) as c:
            c.settimeout(args.timeout)
            ok = c.recv(16).startswith(b"OK")
    except OSError:
        pass
    print(json.dumps({"ok": ok}))


# --- refused ---------------------------------------------------------------


def cmd_refused(args):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect(addr(args.target))
    s.settimeout(args.timeout)
    refused = False
    for _ in range(3):
        try:
            s.send(b"HELLO")
            s.recv(2048)
        except ConnectionRefusedError:
            refused = True
            break
        except socket.timeout:
            pass
    print(json.dumps({"refused": refused}))


# --- turn ------------------------------------------------------------------

MAGIC = 0x2112A442


def stun_attr(kind, value):
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * (-len(value) % 4)


def stun_message(kind, attrs, key=None):
    """A STUN message; with `key`, MESSAGE-INTEGRITY (HMAC-SHA1) over it (RFC 8489 §14.5)."""
    body = b"".join(stun_attr(k, v) for k, v in attrs)
    tid = os.urandom(12)
    if key is not None:
        head = struct.pack("!HHI", kind, len(body) + 24, MAGIC) + tid
        body += stun_attr(0x0008, hmac.new(key, head + body, hashlib.sha1).digest())
    return struct.pack("!HHI", kind, len(body), MAGIC) + tid + body


def stun_parse(data):
    """(type, {attribute type: value}) or None for anything that is not STUN."""
    if len(data) < 20:
        return None
    kind, length, magic = struct.unpack_from("!HHI", data)
    if magic != MAGIC or len(data) < 20 + length:
        return None
    attrs, at = {}, 20
    while at + 4 <= 20 + length:
        k, n = struct.unpack_from("!HH", data, at)
        attrs.setdefault(k, data[at + 4:at + 4 + n])
        at += 4 + n + (-n % 4)
    return kind, attrs


def xor_address(value):
    port = struct.unpack_from("!H", value, 2)[0] ^ (MAGIC >> 16)
    ip = struct.unpack_from("!I", value, 4)[0] ^ MAGIC
    return f"{socket.inet_ntoa(struct.pack('!I', ip))}:{port}"


def xor_peer(ip):
    raw = struct.unpack("!I", socket.inet_aton(ip))[0] ^ MAGIC
    return struct.pack("!BBHI", 0, 1, 0 ^ (MAGIC >> 16), raw)


class TurnLink:
    """STUN messages to one TURN server over UDP (datagrams) or TCP (a stream)."""

    def __init__(self, server, transport, timeout):
        self.tcp = transport == "tcp"
        self.sock = socket.create_connection(server, timeout) if self.tcp else socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        if not self.tcp:
            self.sock.connect(server)
        self.buffer = b""

    def send(self, message):
        self.sock.send(message)

    def receive(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            if self.tcp and len(self.buffer) >= 20:
                size = 20 + struct.unpack_from("!H", self.buffer, 2)[0]
                if len(self.buffer) >= size:
                    message, self.buffer = self.buffer[:size], self.buffer[size:]
                    return stun_parse(message)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return None
            data = self.sock.recv(65536)
            if not self.tcp:
                return stun_parse(data)
            if not data:
                return None
            self.buffer += data

    def request(self, kind, attrs, key=None, tries=3):
        for _ in range(tries):
            self.send(stun_message(kind, attrs, key))
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                reply = self.receive(deadline - time.monotonic())
                if reply and reply[0] & 0x3EEF == kind:  # same method, response class
                    return reply
        return None


def cmd_turn(args):
    with urllib.request.urlopen(args.api, timeout=args.timeout) as reply:
        servers = json.load(reply)["iceServers"]
    entry = next(s for s in servers if any(u.startswith("turn:") for u in s["urls"]))
    url = next(u for u in entry["urls"] if u.endswith("transport=" + args.transport))
    server = addr(url[len("turn:"):].split("?")[0])
    user, password = entry["username"], entry["credential"]
    result = {"url": url, "relayed": None, "mapped": None, "data_from": None, "error": None}
    link = TurnLink(server, args.transport, args.timeout)
    transport = [(0x0019, bytes([17, 0, 0, 0]))]
    first = link.request(0x0003, transport)
    if not first or first[0] != 0x0113 or 0x0015 not in first[1]:
        result["error"] = f"expected a 401 with a nonce, got {first and hex(first[0])}"
        print(json.dumps(result))
        return
    realm, nonce = first[1][0x0014], first[1][0x0015]
    key = hashlib.md5(f"{user}:{realm.decode()}:{password}".encode()).digest()
    auth = [(0x0006, user.encode()), (0x0014, realm), (0x0015, nonce)]
    done = link.request(0x0003, transport + auth, key)
    if not done or done[0] != 0x0103:
        result["error"] = f"allocate failed: {done and hex(done[0])}"
        print(json.dumps(result))
        return
    result["relayed"] = xor_address(done[1][0x0016])
    result["mapped"] = xor_address(done[1][0x0020])
    for peer in args.permit:
        permitted = link.request(0x0008, [(0x0012, xor_peer(peer))] + auth, key)
        if not permitted or permitted[0] != 0x0108:
            code = permitted and permitted[1].get(0x0009)
            result["error"] = f"CreatePermission {peer} failed: {code and code[2] * 100 + code[3]}"
            break
    tmp = args.me + ".tmp"
    with open(tmp, "w") as f:
        f.write(result["relayed"])
    os.rename(tmp, args.me)
    deadline = time.monotonic() + args.duration
    while result["data_from"] is None and time.monotonic() < deadline:
        message = link.receive(deadline - time.monotonic())
        if message and message[0] == 0x0017 and message[1].get(0x0013) == b"PING":
            result["data_from"] = xor_address(message[1][0x0012])
    print(json.dumps(result))


def cmd_spray(args):
    deadline = time.monotonic() + args.duration
    while not os.path.exists(args.target_file):
        if time.monotonic() > deadline:
            return
        time.sleep(0.02)
    with open(args.target_file) as f:
        target = addr(f.read().strip())
    s = udp_socket(0)
    while time.monotonic() < deadline:
        s.sendto(b"PING", target)
        time.sleep(0.05)


def main():
    parser = argparse.ArgumentParser(description="natlab probes")
    sub = parser.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("echo")
    p.add_argument("bind", nargs="+")
    p.add_argument("--ready")
    p.set_defaults(func=cmd_echo)

    p = sub.add_parser("stun")
    p.add_argument("--bind", type=int, default=0)
    p.add_argument("--server", action="append", required=True)
    p.add_argument("--unsolicited-port", type=int)
    p.add_argument("--timeout", type=float, default=0.5)
    p.set_defaults(func=cmd_stun)

    p = sub.add_parser("rtt")
    p.add_argument("--server", required=True)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--interval", type=float, default=0.01)
    p.add_argument("--timeout", type=float, default=2.0)
    p.set_defaults(func=cmd_rtt)

    p = sub.add_parser("punch")
    p.add_argument("--bind", type=int, default=0)
    p.add_argument("--stun", required=True)
    p.add_argument("--me", required=True)
    p.add_argument("--peer", required=True)
    p.add_argument("--name", default="peer")
    p.add_argument("--duration", type=float, default=2.0)
    p.add_argument("--timeout", type=float, default=0.5)
    p.set_defaults(func=cmd_punch)

    p = sub.add_parser("tcp")
    p.add_argument("--server", required=True)
    p.add_argument("--timeout", type=float, default=1.0)
    p.set_defaults(func=cmd_tcp)

    p = sub.add_parser("refused")
    p.add_argument("--target", required=True)
    p.add_argument("--timeout", type=float, default=0.3)
    p.set_defaults(func=cmd_refused)

    p = sub.add_parser("turn")
    p.add_argument("--api", required=True)
    p.add_argument("--transport", choices=["udp", "tcp"], default="udp")
    p.add_argument("--permit", action="append", required=True)
    p.add_argument("--me", required=True)
    p.add_argument("--duration", type=float, default=3.0)
    p.add_argument("--timeout", type=float, default=2.0)
    p.set_defaults(func=cmd_turn)

    p = sub.add_parser("spray")
    p.add_argument("--target-file", required=True)
    p.add_argument("--duration", type=float, default=3.0)
    p.set_defaults(func=cmd_spray)

    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
