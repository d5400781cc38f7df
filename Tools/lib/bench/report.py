"""Turns raw benchmark output into measurement records, and prints them.

  report.py ws_idle  [...]  < ws_idle.py's JSON   -> one measurement line
  report.py rest_mix [...]  < rest_mix.lua's JSON -> one measurement line
  report.py print [--json]  < measurement lines   -> table (or the lines)

Each measurement has `status`: PASS / MISS against its target, or FAIL when
the benchmark itself broke (then `reason` says why; `print` exits 1).

The file benchmarks (files_bench.py, relay_bench.py, longpath_bench.py)
import `write_payload`, `sha256` and `free_port` from here.
"""

import argparse
import hashlib
import json
import os
import socket
import sys


def write_payload(path, size_mb):
    """`size_mb` MiB of random bytes (incompressible, like a real file's
    encrypted payload) at `path`; their SHA-256."""
    h = hashlib.sha256()
    with open(path, "wb") as f:
        for _ in range(size_mb):
            chunk = os.urandom(1 << 20)
            h.update(chunk)
            f.write(chunk)
    return h.hexdigest()


def sha256(path):
    """The SHA-256 of a file (what a receiver wrote, to compare)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()



def free_port(kind=socket.SOCK_STREAM):
    """A port on 127.0.0.1 that was free a moment ago."""
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

def machine():
    return {"cpus": os.cpu_count()}


def ws_idle(a, raw):
    rec = {"bench": "server", "measurement": "ws_idle", **machine(),
           "target": f"{a.target_connections} idle WebSockets in < {a.target_mb:g} MB RSS"}
    if "error" in raw:
        rec.update(status="FAIL", reason=raw["error"])
        return rec
    mb = raw["rss_kib"] / 1024
    held = raw["connections_open"]
    rec.update(
        connections=held,
        connections_requested=raw["connections_requested"],
        failures=raw["failures"],
        rss_mb=round(mb, 1),
        baseline_rss_mb=round(raw["baseline_rss_kib"] / 1024, 1),
        per_connection_kib=raw["per_connection_kib"],
        connect_seconds=raw["connect_seconds"],
        connects_per_second=raw["connects_per_second"],
        hold_seconds=raw["hold_seconds"],
        server_fds=raw["server_fds"],
        server_cpu_seconds=a.server_cpu,
        client_cpu_seconds=raw["client_cpu_seconds"],
    )
    if held >= a.target_connections and mb < a.target_mb:
        rec["status"] = "PASS"
    else:
        rec["status"] = "MISS"
        if held < a.target_connections:
            rec["reason"] = f"only {held} of {a.target_connections} held; first failure: {raw['first_failure']}"
        else:
            rec["reason"] = f"RSS {mb:.1f} MB"
    return rec


def rest_mix(a, raw):
    seconds = raw["duration_us"] / 1e6
    rps = raw["requests"] / seconds if seconds else 0
    non2xx = raw["st_other"]
    socket_errors = raw["err_connect"] + raw["err_read"] + raw["err_write"] + raw["err_timeout"]
    rec = {
        "bench": "server", "measurement": "rest_mix", **machine(),
        "requests_per_second": round(rps, 1),
        "requests": raw["requests"],
        "seconds": round(seconds, 2),
        "p50_ms": round(raw["p50_us"] / 1000, 2),
        "p90_ms": round(raw["p90_us"] / 1000, 2),
        "p99_ms": round(raw["p99_us"] / 1000, 2),
        "max_ms": round(raw["max_us"] / 1000, 2),
        "non_2xx": non2xx,
        "socket_errors": socket_errors,
        "creates": raw["issued_create"], "accepts": raw["issued_accept"], "checks": raw["issued_check"],
        "status_201": raw["st201"], "status_200": raw["st200"], "status_204": raw["st204"],
        "wrk_threads": a.threads, "wrk_connections": a.connections,
        "server_cpu_seconds": a.server_cpu,
        "server_cores": round(a.server_cpu / seconds, 2) if seconds else 0,
        "server_cpu_us_per_request": round(a.server_cpu * 1e6 / raw["requests"], 1) if raw["requests"] else 0,
        "wrk_cpu_seconds": a.wrk_cpu,
        "wrk_cores": round(a.wrk_cpu / seconds, 2) if seconds else 0,
        "server_rss_mb_before": round(a.rss_before / 1024, 1),
        "server_rss_mb_after": round(a.rss_after / 1024, 1),
        "server_log_lines": a.log_lines,
        "loadavg_before": a.loadavg,
        "machine_busy_percent": a.machine_busy,
        "target": ">= 5000 requests/s, no non-2xx",
    }
    if non2xx or socket_errors or raw["unmatched"] or raw["issued_filler"]:
        rec["status"] = "FAIL"
        why = []
        if non2xx:
            why.append(f"{non2xx} non-2xx answers, first: {raw['first_error']}")
        if socket_errors:
            why.append(f"socket errors connect {raw['err_connect']} read {raw['err_read']} "
                       f"write {raw['err_write']} timeout {raw['err_timeout']}")
        if raw["unmatched"]:
            why.append(f"{raw['unmatched']} create answers matched no create in flight")
        if raw["issued_filler"]:
            why.append("more creates in flight than slots (too many connections per thread)")
        rec["reason"] = "; ".join(why)
    else:
        rec["status"] = "PASS" if rps >= a.target_rps else "MISS"
    return rec


def table(records):
    rows = []
    for r in records:
        if r["measurement"] == "ws_idle":
            name = "idle WebSockets"
            if r["status"] == "FAIL":
                result, detail = "-", ""
            else:
                result = f"{r['connections']} open, server RSS {r['rss_mb']} MB"
                detail = (f"baseline {r['baseline_rss_mb']} MB, {r['per_connection_kib']} KiB/connection, "
                          f"all connected in {r['connect_seconds']} s ({r['connects_per_second']:.0f}/s), "
                          f"held {r['hold_seconds']:g} s\n"
                          f"CPU while connecting: server {r['server_cpu_seconds']} s, Python client "
                          f"{r['client_cpu_seconds']} s (the client sets the connect rate)")
        else:
            name = "REST create+accept+check"
            result = (f"{r['requests_per_second']:.0f} req/s, p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, "
                      f"non-2xx {r['non_2xx']}")
            detail = (f"{r['requests']} requests in {r['seconds']} s (wrk -t{r['wrk_threads']} "
                      f"-c{r['wrk_connections']}, keep-alive, no pipelining): {r['creates']} create / "
                      f"{r['accepts']} accept / {r['checks']} check "
                      f"({r['status_204']} checks answered 204: accept still in flight)\n"
                      f"server CPU {r['server_cpu_seconds']} s = {r['server_cores']} cores, "
                      f"{r['server_cpu_us_per_request']} us/request; wrk CPU {r['wrk_cpu_seconds']} s = "
                      f"{r['wrk_cores']} cores (same {r['cpus']}-CPU machine: wrk competes with the server)"
                      f"\nwhole machine {r['machine_busy_percent']}% busy during the run (other processes included), "
                      f"load average before {r['loadavg_before']}")
        rows.append((name, result, r["target"], r["status"], detail, r.get("reason", "")))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    out = [f"{'measurement':<{w0}}  {'result':<{w1}}  {'target':<{w2}}  status",
           f"{'-' * w0}  {'-' * w1}  {'-' * w2}  ------"]
    for name, result, target, status, detail, reason in rows:
        out.append(f"{name:<{w0}}  {result:<{w1}}  {target:<{w2}}  {status}")
        for line in filter(None, detail.split("\n") + ([f"reason: {reason}"] if reason else [])):
            out.append(f"{'':<{w0}}    {line}")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["ws_idle", "rest_mix", "print"])
    p.add_argument("--json", action="store_true")
    p.add_argument("--target-mb", type=float, default=200)
    p.add_argument("--target-connections", type=int, default=10000)
    p.add_argument("--target-rps", type=float, default=5000)
    p.add_argument("--server-cpu", type=float, default=0)
    p.add_argument("--wrk-cpu", type=float, default=0)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--connections", type=int, default=0)
    p.add_argument("--rss-before", type=float, default=0)
    p.add_argument("--rss-after", type=float, default=0)
    p.add_argument("--log-lines", type=int, default=0)
    p.add_argument("--loadavg", default="")
    p.add_argument("--machine-busy", type=float, default=0)
    a = p.parse_args()
    if a.mode == "print":
        records = [json.loads(line) for line in sys.stdin if line.strip()]
        if a.json:
            for r in records:
                print(json.dumps(r))
        elif records:
            print(table(records))
        return 1 if any(r["status"] == "FAIL" for r in records) else 0
    raw = json.loads(sys.stdin.read())
    rec = ws_idle(a, raw) if a.mode == "ws_idle" else rest_mix(a, raw)
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
