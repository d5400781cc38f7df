"""The embedded relay (`chatcli serve`) against coturn, side by side, runs
interleaved on this machine, with the same settings: REST credentials from
one secret, loopback peers allowed, 16 MiB/s per allocation (the embedded
relay's default; coturn's `max-bps`), no per-user quota that matters, no TLS.

1. A file (1 GiB by default), `chatcli send` -> `chatcli receive`, both
   `--relay-only`: MB/s (receiver start to exit, pairing included) and the
   relay's CPU per MB (the serving process's user+system time during the
   run: `chatcli serve`, which also signals, or `turnserver` alone).
2. The data-channel tests of `Tools/bench transfer` (`chatcli-bench --only
   bulk|small`: two chatcli peers in one process, here relay-only through
   the relay over UDP): 16 KiB messages (MB/s, relay CPU per MB) and
   100-byte messages (messages/s, relay CPU per message), each for
   `--duration` seconds.
3. coturn's `turnutils_uclient` (`-c -s`: allocations per client, Send
   indications, one message per client every millisecond) to
   `turnutils_peer`: messages per second through each relay.
4. Memory: the relay's RSS with `--allocations` (1,000) allocations held
   (hand-made Allocates from 127.0.N.M, 20 per address).

Prints one JSON line per run, then a table with ratios (embedded / coturn).
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import socket
import statistics
import subprocess
import sys
import time

from report import free_port, sha256, write_payload

PER_ALLOCATION = 16 * 1024 * 1024


def free_udp_pair():
    """An even port whose next one is free too (STUN answers on both)."""
    for _ in range(100):
        port = free_port(socket.SOCK_DGRAM)
        if port % 2 == 0 and port < 65535:
            try:
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind(("127.0.0.1", port + 1))
                s.close()
                return port
            except OSError:
                pass
    raise SystemExit("bench: no free UDP port pair")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for_line(proc, prefix, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith(prefix):
            return line
    raise SystemExit(f"bench: no '{prefix}' from {proc.args[0]}")


def wait_for_port(port, kind=socket.SOCK_STREAM, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        s = socket.socket(socket.AF_INET, kind)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return   # someone holds it now: the server is up
        finally:
            s.close()
        time.sleep(0.05)
    raise SystemExit(f"bench: nothing listened on 127.0.0.1:{port}")


def transfer(args, server, source, out):
    env = dict(os.environ, CHATCLI_SERVER=server, CHATCLI_PORT_MAPPING="off")
    sender = subprocess.Popen([args.chatcli, "send", source, "--json", "--relay-only"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=env)
    code = json.loads(wait_for_line(sender, '{"event":"code"'))["code"]
    start = time.monotonic()
    receiver = subprocess.run([args.chatcli, "receive", code, "--out", out, "--yes", "--json", "--relay-only"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    seconds = time.monotonic() - start
    sender.stdout.close()
    sender.wait()
    relayed = '"path":"relay"' in receiver.stdout
    return seconds, receiver.returncode == 0 and sender.returncode == 0 and relayed


def channel(args, udp_port, username, password, phase, pid):
    """`chatcli-bench --only bulk|small` relay-only through 127.0.0.1:udp_port:
    its figures and the relay's CPU seconds meanwhile."""
    before = cpu_seconds(pid)
    run = subprocess.run([args.bench, "--only", phase, "--duration", str(args.duration), "--turn", f"127.0.0.1:{udp_port}",
                          "--turn-user", username, "--turn-password", password], capture_output=True, text=True, timeout=120)
    cpu = cpu_seconds(pid) - before
    # "bulk: B bytes, M messages in S s, CPU C s; ..."
    words = run.stdout.split()
    if run.returncode != 0 or len(words) < 7 or words[0] != f"{phase}:":
        return None, cpu, (run.stdout + run.stderr).strip()[-300:]
    return (int(words[1]), int(words[3]), float(words[6])), cpu, ""


def rest_credentials(secret, validity=3600):
    username = f"{int(time.time()) + validity}:bench"
    password = base64.b64encode(hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()).decode()
    return username, password


def uclient(args, port, username, password, peer_port):
    start = time.monotonic()
    run = subprocess.run([args.turnutils + "/turnutils_uclient", "-c", "-s", "-u", username, "-w", password, "-p", str(port),
                          "-e", "127.0.0.1", "-r", str(peer_port), "-n", str(args.messages), "-m", str(args.clients),
                          "-l", "200", "-z", "1", "127.0.0.1"], capture_output=True, text=True)
    seconds = time.monotonic() - start
    text = run.stdout + run.stderr
    sent = args.messages * args.clients
    ok = run.returncode == 0 and f"tot_send_msgs={sent}, tot_recv_msgs={sent}" in text
    return seconds, ok


def stun_attr(kind, value):
    pad = (4 - len(value) % 4) % 4
    return kind.to_bytes(2, "big") + len(value).to_bytes(2, "big") + value + b"\0" * pad


def allocate_request(txid, username=None, realm=None, nonce=None, password=None):
    """An Allocate (RFC 8656 §7.1) for UDP, signed when credentials are given."""
    attrs = stun_attr(0x0019, bytes([17, 0, 0, 0]))
    if username:
        attrs += stun_attr(0x0006, username.encode()) + stun_attr(0x0014, realm) + stun_attr(0x0015, nonce)
        header = (0x0003).to_bytes(2, "big") + (len(attrs) + 24).to_bytes(2, "big") + bytes.fromhex("2112a442") + txid
        key = hashlib.md5(f"{username}:{realm.decode()}:{password}".encode()).digest()
        attrs += stun_attr(0x0008, hmac.new(key, header + attrs, hashlib.sha1).digest())
    return (0x0003).to_bytes(2, "big") + len(attrs).to_bytes(2, "big") + bytes.fromhex("2112a442") + txid + attrs


def stun_attrs(message):
    attrs, pos = {}, 20
    while pos + 4 <= len(message):
        kind, length = int.from_bytes(message[pos:pos + 2], "big"), int.from_bytes(message[pos + 2:pos + 4], "big")
        attrs.setdefault(kind, message[pos + 4:pos + 4 + length])
        pos += 4 + length + (4 - length % 4) % 4
    return attrs


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def hold_allocations(port, secret, count):
    """`count` allocations on 127.0.0.1:port, from up to 20 per source
    address (127.0.N.M: the embedded relay's per-address quota); the
    sockets that hold them, and how many succeeded."""
    username, password = rest_credentials(secret)
    sockets, held = [], 0
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((f"127.0.{1 + i // 20}.{1 + i % 20}", 0))
        s.settimeout(5)
        sockets.append(s)
        try:
            s.sendto(allocate_request(os.urandom(12)), ("127.0.0.1", port))
            attrs = stun_attrs(s.recv(2048))
            realm, nonce = attrs[0x0014], attrs[0x0015]
            s.sendto(allocate_request(os.urandom(12), username, realm, nonce, password), ("127.0.0.1", port))
            reply = s.recv(2048)
            held += reply[:2] == bytes([0x01, 0x03])
        except (OSError, KeyError):
            pass
    return sockets, held


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chatcli", required=True)
    ap.add_argument("--bench", required=True, help="chatcli-bench (release)")
    ap.add_argument("--duration", type=float, default=5, help="seconds of each data-channel test")
    ap.add_argument("--turnserver", default="/usr/bin/turnserver")
    ap.add_argument("--turnutils", default="/usr/bin")
    ap.add_argument("--work", required=True)
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--messages", type=int, default=2000)
    # The embedded relay holds one client address to 20 allocations (uclient takes two per client).
    ap.add_argument("--clients", type=int, default=5)
    ap.add_argument("--allocations", type=int, default=1000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    secret = os.urandom(16).hex()
    secret_file = os.path.join(args.work, "turn.secret")
    with open(secret_file, "w") as f:
        f.write(secret + "\n")
    size = args.size_mb << 20
    source = os.path.join(args.work, "payload.bin")
    digest = write_payload(source, args.size_mb)

    procs = []
    # The embedded relay.
    e_port, e_stun = free_port(), free_udp_pair()
    embedded = subprocess.Popen([args.chatcli, "serve", "--host", "127.0.0.1", "--port", str(e_port), "--stun-port", str(e_stun),
                                 "--db", os.path.join(args.work, "embedded.db"), "--turn-secret-file", secret_file,
                                 "--turn-allow-peer", "127.0.0.0/8", "--turn-user-quota", "100000",
                                 "--turn-max-allocations", "100000"], stderr=subprocess.DEVNULL)
    procs.append(embedded)
    # coturn, and a serve that hands it out.
    t_port = free_udp_pair()
    turn = subprocess.Popen([args.turnserver, "-n", "--use-auth-secret", f"--static-auth-secret={secret}", "--realm=chatcli",
                             "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", f"--listening-port={t_port}",
                             "--min-port=40000", "--max-port=44000", "--no-cli", "--no-tls", "--no-dtls", "--allow-loopback-peers",
                             f"--max-bps={PER_ALLOCATION}", "--no-stdout-log", f"--log-file={args.work}/turn.log",
                             f"--pidfile={args.work}/turnserver.pid", f"--db={args.work}/turndb"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(turn)
    c_port, c_stun = free_port(), free_udp_pair()
    procs.append(subprocess.Popen([args.chatcli, "serve", "--host", "127.0.0.1", "--port", str(c_port), "--stun-port", str(c_stun),
                                   "--db", os.path.join(args.work, "coturn.db"), "--turn-secret-file", secret_file,
                                   "--turn-url", f"turn:127.0.0.1:{t_port}?transport=udp"], stderr=subprocess.DEVNULL))
    for port in (e_port, c_port):
        wait_for_port(port)
    wait_for_port(t_port, socket.SOCK_DGRAM)
    peer_port = free_udp_pair()
    procs.append(subprocess.Popen([args.turnutils + "/turnutils_peer", "-p", str(peer_port), "-L", "127.0.0.1"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    relays = {"embedded": (f"http://127.0.0.1:{e_port}", embedded.pid, e_stun),
              "coturn": (f"http://127.0.0.1:{c_port}", turn.pid, t_port)}
    results = {k: {"file": [], "bulk": [], "small": [], "uclient": [], "allocations": {}} for k in relays}
    try:
        for n in range(args.runs):
            for kind, (server, pid, udp_port) in relays.items():   # interleaved: load on the machine hits both alike
                out = os.path.join(args.work, f"out-{kind}-{n}")
                os.makedirs(out)
                before = cpu_seconds(pid)
                seconds, ok = transfer(args, server, source, out)
                cpu = cpu_seconds(pid) - before
                received = os.path.join(out, "payload.bin")
                ok = ok and os.path.exists(received) and sha256(received) == digest
                if os.path.exists(received):
                    os.remove(received)
                row = {"relay": kind, "test": "file", "run": n + 1, "bytes": size, "seconds": round(seconds, 3),
                       "mb_per_s": round(size / 1e6 / seconds, 1), "relay_cpu_ms_per_mb": round(cpu * 1000 / (size / 1e6), 2),
                       "verified": ok}
                results[kind]["file"].append(row)
                print(json.dumps(row), flush=True)

                username, password = rest_credentials(secret)
                for phase in ("bulk", "small"):
                    figures, cpu, error = channel(args, udp_port, username, password, phase, pid)
                    row = {"relay": kind, "test": phase, "run": n + 1, "relay_cpu_s": round(cpu, 3), "verified": figures is not None}
                    if figures:
                        data, messages, seconds = figures
                        row.update(bytes=data, messages=messages, seconds=seconds, mb_per_s=round(data / 1e6 / seconds, 1),
                                   messages_per_s=round(messages / seconds), relay_cpu_ms_per_mb=round(cpu * 1000 / (data / 1e6), 2),
                                   relay_cpu_us_per_message=round(cpu * 1e6 / messages, 2))
                    else:
                        row["error"] = error
                    results[kind][phase].append(row)
                    print(json.dumps(row), flush=True)

                seconds, ok = uclient(args, udp_port, username, password, peer_port)
                messages = 2 * args.messages * args.clients   # each echoed by the peer
                row = {"relay": kind, "test": "uclient", "run": n + 1, "messages": messages, "seconds": round(seconds, 3),
                       "messages_per_s": round(messages / seconds), "verified": ok}
                results[kind]["uclient"].append(row)
                print(json.dumps(row), flush=True)
        # Memory: RSS before and with the allocations held (last, on warm servers).
        for kind, (_, pid, udp_port) in relays.items():
            before = rss_kib(pid)
            held_sockets, held = hold_allocations(udp_port, secret, args.allocations)
            time.sleep(1)
            row = {"relay": kind, "test": "allocations", "allocations": held, "rss_before_mb": round(before / 1024, 1),
                   "rss_mb": round(rss_kib(pid) / 1024, 1), "verified": held == args.allocations}
            results[kind]["allocations"] = row
            print(json.dumps(row), flush=True)
            for sock in held_sockets:
                sock.close()
    finally:
        for p in procs:
            p.kill()
            p.wait()

    if args.json:
        return
    def median(rows, key):
        values = [r[key] for r in rows if key in r]
        return statistics.median(values) if values else float("nan")

    print(f"\nrelayed: a {args.size_mb} MiB file (send -> receive, --relay-only); chatcli-bench's data-channel tests "
          f"relay-only for {args.duration:g} s (bulk: 16 KiB messages, small: 100 bytes); turnutils_uclient "
          f"({args.clients} clients x {args.messages} messages of 200 bytes); {args.runs} runs each, medians; "
          f"relay CPU is the serving process's", file=sys.stderr)
    print(f"{'relay':<9} {'file MB/s':>9} {'CPU ms/MB':>9} {'bulk MB/s':>9} {'CPU ms/MB':>9} {'small msg/s':>11} "
          f"{'CPU us/msg':>10} {'uclient msg/s':>13} {'RSS MB (allocs)':>16} {'verified':>8}", file=sys.stderr)
    medians = {}
    for kind, rows in results.items():
        memory = rows["allocations"]
        m = {"file": median(rows["file"], "mb_per_s"), "file_cpu": median(rows["file"], "relay_cpu_ms_per_mb"),
             "bulk": median(rows["bulk"], "mb_per_s"), "bulk_cpu": median(rows["bulk"], "relay_cpu_ms_per_mb"),
             "small": median(rows["small"], "messages_per_s"), "small_cpu": median(rows["small"], "relay_cpu_us_per_message"),
             "uclient": median(rows["uclient"], "messages_per_s")}
        medians[kind] = m
        ok = all(r["verified"] for r in rows["file"] + rows["bulk"] + rows["small"] + rows["uclient"] + [memory])
        rss = f"{memory['rss_mb']:.1f} ({memory['allocations']})"
        print(f"{kind:<9} {m['file']:>9.1f} {m['file_cpu']:>9.2f} {m['bulk']:>9.1f} {m['bulk_cpu']:>9.2f} {m['small']:>11.0f} "
              f"{m['small_cpu']:>10.2f} {m['uclient']:>13.0f} {rss:>16} {str(ok):>8}", file=sys.stderr)
    e, c = medians["embedded"], medians["coturn"]

    def ratio(key):
        return e[key] / c[key] if c[key] else float("inf")

    print(f"embedded / coturn: file throughput {ratio('file'):.2f}x, CPU per MB {ratio('file_cpu'):.2f}x; "
          f"bulk {ratio('bulk'):.2f}x, CPU per MB {ratio('bulk_cpu'):.2f}x; small messages {ratio('small'):.2f}x, "
          f"CPU per message {ratio('small_cpu'):.2f}x; uclient messages/s {ratio('uclient'):.2f}x "
          f"(targets: throughput >= 1.0, CPU <= 1.0)", file=sys.stderr)


main()
