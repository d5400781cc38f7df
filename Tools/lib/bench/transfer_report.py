"""Table for `Tools/bench transfer`: reads the chatcli and aiortc JSON lines
on stdin, prints both stacks, the chatcli/aiortc ratios and chatcli against
its targets (or, with --json, the input lines plus one line of verdicts)."""

import argparse
import json
import sys

# (key, label, unit, better, target) -- better: "high" or "low".
METRICS = [
    ("bulk_MBps", "bulk 16 KiB msgs", "MB/s", "high", 110),
    ("small_msgs_per_s", "small 100 B msgs", "msg/s", "high", 400_000),
    ("rtt_us_median", "RTT median", "us", "low", 90),
    ("rtt_us_p99", "RTT p99", "us", "low", None),
    ("setup_ms", "setup", "ms", "low", 5),
    ("cpu_ms_per_MB", "CPU during bulk", "ms/MB", "low", 16),
]

# Measured on this machine by the author (not re-measured here).
LIBDATACHANNEL = {"bulk_MBps": 56, "small_msgs_per_s": 317_000, "rtt_us_median": 127,
                  "setup_ms": 3.8, "cpu_ms_per_MB": 23}


def fmt(value):
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def verdict(key, better, target, value):
    if target is None or value is None:
        return None
    return value >= target if better == "high" else value <= target


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    for line in sys.stdin:
        line = line.strip()
        if line.startswith("{"):
            record = json.loads(line)
            results[record["stack"]] = record
    chatcli, aiortc = results.get("chatcli", {}), results.get("aiortc", {})

    if args.json:
        for stack in ("chatcli", "aiortc"):
            if stack in results:
                print(json.dumps(results[stack], separators=(",", ":")))
        verdicts = {key: verdict(key, better, target, chatcli.get(key))
                    for key, _, _, better, target in METRICS if target is not None}
        print(json.dumps({"targets": verdicts}, separators=(",", ":")))
        return

    header = ("metric", "unit", "chatcli", "aiortc", "chatcli/aiortc", "libdc (ref)", "target", "")
    rows = [header]
    for key, label, unit, better, target in METRICS:
        ours, theirs = chatcli.get(key), aiortc.get(key)
        ratio = f"{ours / theirs:.2f}x" if ours is not None and theirs else "-"
        if better == "low":
            ratio += " (lower better)"
        ok = verdict(key, better, target, ours)
        target_text = "-" if target is None else ((">= " if better == "high" else "<= ") + fmt(target))
        rows.append((label, unit, fmt(ours), fmt(theirs), ratio, fmt(LIBDATACHANNEL.get(key)), target_text,
                     "" if ok is None else ("PASS" if ok else "MISS")))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(widths[i]) if i == 0 or i == 1 else cell.rjust(widths[i])
                        for i, cell in enumerate(row)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    print()
    print("Ratios are chatcli/aiortc: above 1 is better for throughput; for RTT, setup")
    print("and CPU lower is better. libdc (ref): libdatachannel as measured by the issue's")
    print("author on this machine. Sender and receiver share one process and the 2 CPUs.")


if __name__ == "__main__":
    main()
