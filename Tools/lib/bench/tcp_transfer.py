#!/usr/bin/env python3
"""A plain TCP file transfer for `Tools/bench longpath`: the yardstick chatcli
is measured against on the same emulated link.

  tcp_transfer.py receive --bind IP:PORT --out FILE --ready FILE [--cc NAME]
  tcp_transfer.py send --to IP:PORT --file FILE [--cc NAME]

Kernel defaults everywhere (buffer sizes, autotuning, offloads) except the
congestion control, which is set per socket (TCP_CONGESTION; default cubic)
so the comparison does not depend on the namespace's default (BBR on some
hosts). The sender writes the file with socket.sendall in 1 MiB pieces; the
receiver writes what arrives to FILE, hashes it (SHA-256) as it goes, and
prints JSON lines: "progress" when the connection is accepted and then at
most every 0.25 s as data arrives (bytes so far: sampled like chatcli's
progress events, and a bench that gives up knows the rate so far), then "done": bytes, the time of the first
byte and of the end of the stream (time.monotonic(): the machine's clock,
the same in every namespace), the rate between them, the digest and the
congestion control the socket used.
"""
import argparse
import hashlib
import json
import socket
import sys
import time

CHUNK = 1 << 20
PROGRESS_EVERY = 0.25


def address(text):
    host, _, port = text.rpartition(":")
    return host, int(port)


def congestion(sock, name):
    if name:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, name.encode())
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0].decode()


def receive(args):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    congestion(listener, args.cc)  # inherited by the accepted socket
    listener.bind(address(args.bind))
    listener.listen(1)
    with open(args.ready, "w") as f:
        f.write("ready\n")
    conn, _ = listener.accept()
    digest = hashlib.sha256()
    total, first, last = 0, None, None
    # Sampled like chatcli's progress events: one at the start, then at
    # most every 0.25 s as data arrives.
    reported = time.monotonic()
    print(json.dumps({"event": "progress", "bytes": 0, "first_byte": None, "now": reported}), flush=True)
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    with open(args.out, "wb") as out:
        while n := conn.recv_into(buf):
            last = time.monotonic()
            if first is None:
                first = last
            total += n
            digest.update(view[:n])
            out.write(view[:n])
            if last - reported >= PROGRESS_EVERY:
                reported = last
                print(json.dumps({"event": "progress", "bytes": total, "first_byte": first, "now": last}), flush=True)
    seconds = (last - first) if first is not None else 0.0
    print(json.dumps({"event": "done", "bytes": total, "first_byte": first, "end": last, "seconds": round(seconds, 3),
                      "mb_per_s": round(total / 1e6 / seconds, 2) if seconds else 0.0,
                      "sha256": digest.hexdigest(), "cc": congestion(conn, None)}), flush=True)
    conn.close()


def send(args):
    sock = socket.socket()
    congestion(sock, args.cc)
    sock.connect(address(args.to))
    print(json.dumps({"event": "connected", "cc": congestion(sock, None)}), flush=True)
    with open(args.file, "rb") as f:
        while chunk := f.read(CHUNK):
            sock.sendall(chunk)
    sock.shutdown(socket.SHUT_WR)
    sock.recv(1)  # the receiver closes after the last byte
    sock.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("receive")
    r.add_argument("--bind", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--ready", required=True)
    r.add_argument("--cc", default="cubic")
    s = sub.add_parser("send")
    s.add_argument("--to", required=True)
    s.add_argument("--file", required=True)
    s.add_argument("--cc", default="cubic")
    args = ap.parse_args()
    try:
        receive(args) if args.mode == "receive" else send(args)
    except OSError as e:
        sys.exit(f"tcp_transfer {args.mode}: {e.strerror or e}")


if __name__ == "__main__":
    main()
