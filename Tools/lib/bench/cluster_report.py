"""Rows and the table of `Tools/bench cluster`.

row N INSTANCE_CPU_S REDIS_CPU_S HAPROXY_CPU_S EVALSHA_CALLS RSS_KIB WRK_RESULT_JSON -> one JSON line
table < lines -> a text table
idle N WS_IDLE_JSON -> one JSON line (idle WebSockets on N instances)
idle-table < lines, ops-table < cluster_ops.py lines -> text tables
"""
import json
import sys

if sys.argv[1] == "row":
    n, inst, redis, lb, evals, rss = (int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]),
                                      int(sys.argv[6]), int(sys.argv[7]))
    r = json.loads(sys.argv[8])
    secs = r["duration_us"] / 1e6
    ok = max(r["st201"] + r["st200"] + r["st204"], 1)
    errors = r["err_connect"] + r["err_read"] + r["err_write"] + r["err_timeout"] + r["st_other"]
    print(json.dumps({
        "instances": n, "rps": round(ok / secs), "p50_ms": r["p50_us"] / 1000, "p99_ms": r["p99_us"] / 1000,
        "errors": errors, "instance_cpu_us_per_req": round(inst * 1e6 / ok), "redis_cpu_us_per_req": round(redis * 1e6 / ok),
        "haproxy_cpu_us_per_req": round(lb * 1e6 / ok), "redis_scripts_per_req": round(evals / ok, 2),
        "rss_mb_per_instance": round(rss / 1024 / n, 1),
    }))
elif sys.argv[1] == "idle":
    n, r = int(sys.argv[2]), json.loads(sys.argv[3])
    if "error" in r:
        print(json.dumps({"idle_instances": n, "error": r["error"]}))
        sys.exit(0)
    opened = max(r["connections_open"], 1)
    redis_delta = r["redis_used_memory"] - r["redis_used_memory_before"]
    print(json.dumps({
        "idle_instances": n, "connections": r["connections_open"], "failures": r["failures"],
        "kib_per_connection": round((r["rss_kib"] - r["baseline_rss_kib"]) / opened, 2),
        "rss_mb_per_instance": [round(i["rss_kib"] / 1024, 1) for i in r["instances"]],
        "redis_bytes_per_connection": round(redis_delta / opened, 1),
        "redis_used_memory_mb": round(r["redis_used_memory"] / 1048576, 2),
    }))
elif sys.argv[1] == "idle-table":
    print(f"{'instances':>9} {'idle WS open':>12} {'KiB/WS (instance)':>18} {'RSS MB per instance':>24} "
          f"{'Redis B/WS':>10} {'Redis MB':>8}")
    for line in sys.stdin:
        if not line.strip():
            continue
        r = json.loads(line)
        if "error" in r:
            print(f"{r['idle_instances']:>9} FAIL: {r['error']}")
            continue
        print(f"{r['idle_instances']:>9} {r['connections']:>12} {r['kib_per_connection']:>18} "
              f"{' / '.join(str(x) for x in r['rss_mb_per_instance']):>24} {r['redis_bytes_per_connection']:>10} "
              f"{r['redis_used_memory_mb']:>8}")
elif sys.argv[1] == "ops-table":
    print(f"{'instances':>9} {'operation':>28} {'calls (EVALSHA+XREAD)':>22} {'Redis commands':>14}")
    names = {"pairing": "pairing (REST, long poll)", "seating": "seating both members",
             "relay": "relayed message (one by one)", "burst": "relayed message (burst)"}
    for line in sys.stdin:
        if not line.strip():
            continue
        r = json.loads(line)
        for key, name in names.items():
            print(f"{r['instances']:>9} {name:>28} {r[key]['calls']:>22} {r[key]['total']:>14}")
else:
    rows = [json.loads(line) for line in sys.stdin if line.strip()]
    print(f"{'instances':>9} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'inst us/req':>11} "
          f"{'redis us/req':>12} {'haproxy us/req':>14} {'scripts/req':>11} {'RSS MB/inst':>11}")
    for r in rows:
        print(f"{r['instances']:>9} {r['rps']:>7} {r['p50_ms']:>7.1f} {r['p99_ms']:>7.1f} {r['errors']:>6} "
              f"{r['instance_cpu_us_per_req']:>11} {r['redis_cpu_us_per_req']:>12} {r['haproxy_cpu_us_per_req']:>14} "
              f"{r['redis_scripts_per_req']:>11} {r['rss_mb_per_instance']:>11}")
