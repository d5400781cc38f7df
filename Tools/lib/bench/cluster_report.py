"""Rows and the table of `Tools/bench cluster`.

row N INSTANCE_CPU_S REDIS_CPU_S HAPROXY_CPU_S EVALSHA_CALLS RSS_KIB WRK_RESULT_JSON -> one JSON line
table < lines -> a text table
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
else:
    rows = [json.loads(line) for line in sys.stdin if line.strip()]
    print(f"{'instances':>9} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'inst us/req':>11} "
          f"{'redis us/req':>12} {'haproxy us/req':>14} {'scripts/req':>11} {'RSS MB/inst':>11}")
    for r in rows:
        print(f"{r['instances']:>9} {r['rps']:>7} {r['p50_ms']:>7.1f} {r['p99_ms']:>7.1f} {r['errors']:>6} "
              f"{r['instance_cpu_us_per_req']:>11} {r['redis_cpu_us_per_req']:>12} {r['haproxy_cpu_us_per_req']:>14} "
              f"{r['redis_scripts_per_req']:>11} {r['rss_mb_per_instance']:>11}")
