"""Idle WebSocket benchmark for `Tools/bench server`.

Opens N WebSocket connections to the signaling server (at most `--concurrency`
handshakes in flight), waits for each one's `{"type":"connected"}` message,
holds them all open for `--hold` seconds, then reads the server's resident
memory (VmRSS in /proc/PID/status) and prints one JSON object on stdout:
baseline RSS before connecting, RSS with every connection open, KiB per
connection, and how long connecting took. Progress goes to stderr.

For a cluster, give `--url` and `--pid` once per instance (connections are
spread round robin; RSS figures are sums, `instances` lists each) and
`--redis-port` to report Redis's `used_memory` before and with the
connections open.

Usage: python ws_idle.py --url ws://127.0.0.1:PORT/ --pid PID [--connections N]
       [--url ... --pid ...] [--redis-port P]
"""

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import time

from websockets.asyncio.client import connect


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def redis_used_memory(port):
    out = subprocess.run(["redis-cli", "-p", str(port), "info", "memory"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    raise RuntimeError("no used_memory from redis-cli")


def fd_count(pid):
    import os
    return len(os.listdir(f"/proc/{pid}/fd"))


def raise_nofile(wanted):
    """Raises our soft descriptor limit towards `wanted`; returns (soft, hard)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft == resource.RLIM_INFINITY or soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


async def open_one(url, sem, opened, failures):
    async with sem:
        try:
            ws = await connect(url, ping_interval=None, close_timeout=1,
                               max_size=2 ** 16, compression=None, open_timeout=30)
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message.get("type") != "connected" or not message.get("clientId"):
                raise RuntimeError(f"unexpected first message {message!r}")
            opened.append(ws)
        except Exception as e:  # noqa: BLE001 - reported, not hidden
            failures.append(f"{type(e).__name__}: {e}")


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True, action="append")
    p.add_argument("--pid", type=int, required=True, action="append")
    p.add_argument("--redis-port", type=int)
    p.add_argument("--connections", type=int, default=10000)
    p.add_argument("--concurrency", type=int, default=200)
    p.add_argument("--hold", type=float, default=5.0)
    a = p.parse_args()

    soft, hard = raise_nofile(a.connections + 1024)
    if soft < a.connections + 64:
        print(json.dumps({"error": f"open-files limit too low for {a.connections} client sockets: "
                                   f"soft {soft}, hard {hard} (raise the hard limit, e.g. ulimit -Hn)"}))
        return 2

    baselines = [rss_kib(pid) for pid in a.pid]
    baseline = sum(baselines)
    baseline_fds = sum(fd_count(pid) for pid in a.pid)
    redis_before = redis_used_memory(a.redis_port) if a.redis_port else None
    sem = asyncio.Semaphore(a.concurrency)
    opened, failures = [], []
    start = time.monotonic()
    tasks = [asyncio.create_task(open_one(a.url[i % len(a.url)], sem, opened, failures)) for i in range(a.connections)]
    last = start
    while True:
        done = sum(t.done() for t in tasks)
        if done == len(tasks):
            break
        now = time.monotonic()
        if now - last >= 2:
            print(f"    {len(opened)} connected, {len(failures)} failed, "
                  f"{now - start:.1f} s", file=sys.stderr)
            last = now
        await asyncio.sleep(0.2)
    connect_seconds = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    client_cpu = usage.ru_utime + usage.ru_stime
    await asyncio.sleep(a.hold)
    # All still open? A closed one has `close_code` set.
    still_open = sum(1 for ws in opened if ws.close_code is None)
    loadeds = [rss_kib(pid) for pid in a.pid]
    loaded = sum(loadeds)
    loaded_fds = sum(fd_count(pid) for pid in a.pid)
    redis_after = redis_used_memory(a.redis_port) if a.redis_port else None
    result = {
        "connections_requested": a.connections,
        "connections_open": still_open,
        "failures": len(failures),
        "first_failure": failures[0] if failures else "",
        "connect_seconds": round(connect_seconds, 3),
        "connects_per_second": round(len(opened) / connect_seconds, 1) if connect_seconds > 0 else 0,
        "hold_seconds": a.hold,
        "baseline_rss_kib": baseline,
        "rss_kib": loaded,
        "per_connection_kib": round((loaded - baseline) / still_open, 2) if still_open else 0,
        "server_fds_before": baseline_fds,
        "server_fds": loaded_fds,
        "client_cpu_seconds": round(client_cpu, 2),
        "client_nofile_soft": soft,
        "client_nofile_hard": hard,
    }
    if len(a.pid) > 1 or a.redis_port:
        result["instances"] = [{"pid": pid, "baseline_rss_kib": b, "rss_kib": l}
                               for pid, b, l in zip(a.pid, baselines, loadeds)]
    if a.redis_port:
        result["redis_used_memory_before"] = redis_before
        result["redis_used_memory"] = redis_after
    print(json.dumps(result), flush=True)
    closing = time.monotonic()
    await asyncio.gather(*(ws.close() for ws in opened), return_exceptions=True)
    print(f"    closed {len(opened)} in {time.monotonic() - closing:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
