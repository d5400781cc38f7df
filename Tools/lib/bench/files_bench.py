"""File transfer on this machine: chatcli send/receive (path MTU discovered,
and capped at 1200 bytes like an internet path) against magic-wormhole's
direct transfer with a local mailbox and transit relay, in the same run.

Each run times the receiving process from its start to its exit (pairing
included on both sides), takes user+system CPU of both processes, and checks
the received file's SHA-256. Prints one JSON line per run, then a table.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time

from report import sha256, write_payload


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cpu_of(proc):
    """Waits for `proc`; its user+system CPU seconds."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def wait_for(proc, prefix, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith(prefix):
            return line
    raise SystemExit(f"bench: no '{prefix}' from {proc.args[0]}")


def chatcli_run(args, server, source, out, packet, binary=None):
    binary = binary or args.chatcli
    env = dict(os.environ, CHATCLI_SERVER=server)
    if packet:
        env["CHATCLI_MAX_PACKET"] = str(packet)
    sender = subprocess.Popen([binary, "send", source, "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    code = json.loads(wait_for(sender, '{"event":"code"'))["code"]
    start = time.monotonic()
    receiver = subprocess.Popen([binary, "receive", code, "--out", out, "--yes", "--json"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env)
    receiver_cpu = cpu_of(receiver)
    seconds = time.monotonic() - start
    sender.stdout.close()
    sender_cpu = cpu_of(sender)
    return seconds, sender_cpu + receiver_cpu, receiver.returncode == 0 and sender.returncode == 0


def wormhole_run(args, relay, transit, source, out, n):
    w = os.path.join(args.wormhole, "wormhole")
    common = ["--relay-url", relay, "--transit-helper", transit]
    code = f"{n + 2}-bench-run"
    sender = subprocess.Popen([w] + common + ["send", "--code", code, source], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wait_for(sender, "Wormhole code is")
    start = time.monotonic()
    receiver = subprocess.Popen([w] + common + ["receive", "--accept-file", "--output-file", os.path.join(out, os.path.basename(source)), code],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    receiver_cpu = cpu_of(receiver)
    seconds = time.monotonic() - start
    sender.stdout.close()
    sender_cpu = cpu_of(sender)
    return seconds, sender_cpu + receiver_cpu, receiver.returncode == 0 and sender.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chatcli", required=True)
    ap.add_argument("--wormhole", help="bin directory of a venv with magic-wormhole and its servers")
    ap.add_argument("--work", required=True)
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline", help="another chatcli binary (an older build) measured in the same runs")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    size = args.size_mb << 20
    source = os.path.join(args.work, "payload.bin")
    digest = write_payload(source, args.size_mb)
    procs = []
    port, stun = free_port(), free_port()
    procs.append(subprocess.Popen([args.chatcli, "serve", "--host", "127.0.0.1", "--port", str(port), "--stun-port", str(stun),
                                   "--db", os.path.join(args.work, "rooms.db")], stderr=subprocess.DEVNULL))
    server = f"http://127.0.0.1:{port}"
    if args.wormhole:
        mailbox, transit = free_port(), free_port()
        twist = os.path.join(args.wormhole, "twist")
        procs.append(subprocess.Popen([twist, "wormhole-mailbox", "--port", f"tcp:{mailbox}:interface=127.0.0.1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=args.work))
        procs.append(subprocess.Popen([twist, "transitrelay", "--port", f"tcp:{transit}:interface=127.0.0.1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=args.work))
    time.sleep(2)

    kinds = [("chatcli", 0), ("chatcli-1200", 1200)]
    if args.baseline:
        kinds += [("baseline", 0), ("baseline-1200", 1200)]
    if args.wormhole:
        kinds.append(("magic-wormhole", None))
    results = {k: [] for k, _ in kinds}
    try:
        for n in range(args.runs):
            for kind, packet in kinds:   # interleaved, so load on the machine hits every tool alike
                out = os.path.join(args.work, f"out-{kind}-{n}")
                os.makedirs(out)
                if kind == "magic-wormhole":
                    seconds, cpu, ok = wormhole_run(args, f"ws://127.0.0.1:{mailbox}/v1", f"tcp:127.0.0.1:{transit}", source, out, n)
                else:
                    binary = args.baseline if kind.startswith("baseline") else None
                    seconds, cpu, ok = chatcli_run(args, server, source, out, packet, binary)
                received = os.path.join(out, "payload.bin")
                ok = ok and os.path.exists(received) and sha256(received) == digest
                if os.path.exists(received):
                    os.remove(received)
                row = {"tool": kind, "run": n + 1, "bytes": size, "seconds": round(seconds, 3), "mb_per_s": round(size / 1e6 / seconds, 1),
                       "cpu_ms_per_mb": round(cpu * 1000 / (size / 1e6), 2), "verified": ok}
                results[kind].append(row)
                print(json.dumps(row), flush=True)
    finally:
        for p in procs:
            p.kill()
            p.wait()

    if args.json:
        return
    print(f"\n{args.size_mb} MiB file, send -> receive on this machine, {args.runs} runs each (median; best in brackets)", file=sys.stderr)
    print(f"{'tool':<16} {'MB/s':>16} {'CPU ms/MB':>10} {'verified':>9}", file=sys.stderr)
    medians = {}
    for kind, rows in results.items():
        rates = [r["mb_per_s"] for r in rows]
        medians[kind] = statistics.median(rates)
        cpu = statistics.median(r["cpu_ms_per_mb"] for r in rows)
        print(f"{kind:<16} {medians[kind]:>8.1f} [{max(rates):>5.1f}] {cpu:>10.2f} {str(all(r['verified'] for r in rows)):>9}", file=sys.stderr)
    if "magic-wormhole" in medians:
        ratio = medians["chatcli"] / medians["magic-wormhole"]
        print(f"chatcli / magic-wormhole: {ratio:.2f}x (target >= 1.0, moonshot >= 1.5)", file=sys.stderr)


main()
