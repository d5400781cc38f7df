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

Everything is plain text over UDP so a failure is easy to read in tcpdump.
"""

import argparse
import json
import os
import select
import socket
import statistics
import sys
import time


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

    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
