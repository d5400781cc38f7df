"""Table for `Tools/bench transfer`: reads the chatcli, aiortc and Pion JSON
lines on stdin, prints the stacks, the chatcli/aiortc and chatcli/Pion ratios
and chatcli against its targets (or, with --json, the input lines plus one
line of verdicts)."""

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

# Measured on this machine by the author (not re-measured here:
# Debian 12 does not package libdatachannel).
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


def best(records):
    """A stack measured more than once (chatcli and --baseline, around the
    others): the better value of its runs for each metric."""
    merged = dict(records[0])
    for key, _, _, better, _ in METRICS:
        values = [r[key] for r in records if r.get(key) is not None]
        if values:
            merged[key] = max(values) if better == "high" else min(values)
    merged["runs"] = len(records)
    return merged


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = {}
    for line in sys.stdin:
        line = line.strip()
        if line.startswith("{"):
            record = json.loads(line)
            runs.setdefault(record["stack"], []).append(record)
    results = {stack: best(records) for stack, records in runs.items()}
    chatcli = results.get("chatcli", {})
    # The comparison stacks measured in this run, each with its ratio column.
    others = [(stack, label) for stack, label in (("baseline", "baseline"), ("aiortc", "aiortc"), ("pion", "Pion"))
              if stack in results]

    if args.json:
        for stack in ("chatcli", "baseline", "aiortc", "pion"):
            if stack in results:
                print(json.dumps(results[stack], separators=(",", ":")))
        verdicts = {key: verdict(key, better, target, chatcli.get(key))
                    for key, _, _, better, target in METRICS if target is not None}
        print(json.dumps({"targets": verdicts}, separators=(",", ":")))
        return

    header = ("metric", "unit", "chatcli", *(label for _, label in others),
              *(f"chatcli/{label}" for _, label in others), "libdc (ref)", "target", "")
    rows = [header]
    for key, label, unit, better, target in METRICS:
        ours = chatcli.get(key)
        ratios = []
        for stack, _ in others:
            theirs = results[stack].get(key)
            ratios.append((f"{ours / theirs:.2f}x" if ours is not None and theirs else "-")
                          + (" (lower better)" if better == "low" and not ratios else ""))
        ok = verdict(key, better, target, ours)
        target_text = "-" if target is None else ((">= " if better == "high" else "<= ") + fmt(target))
        rows.append((label, unit, fmt(ours), *(fmt(results[stack].get(key)) for stack, _ in others), *ratios,
                     fmt(LIBDATACHANNEL.get(key)), target_text, "" if ok is None else ("PASS" if ok else "MISS")))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(widths[i]) if i == 0 or i == 1 else cell.rjust(widths[i])
                        for i, cell in enumerate(row)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    print()
    if "baseline" in results:
        print(f"chatcli and the baseline ran {chatcli.get('runs', 1)} and {results['baseline']['runs']} times, "
              "interleaved around the other stacks; each shows its better run per metric.")
    print("Ratios are chatcli over the other stack: above 1 is better for throughput; for")
    print("RTT, setup and CPU lower is better. libdc (ref): libdatachannel as measured by")
    print("the issue's author on this machine; Debian 12 does not package it, so it is not")
    print("re-measured. Sender and receiver share one process: chatcli and aiortc run on")
    print("one thread, Pion's goroutines may use both CPUs (compare its CPU per MB too).")
    print("Pion (SCTP packets of 1228 bytes) and aiortc always use internet-sized packets:")
    print("compare them with chatcli under CHATCLI_MAX_PACKET=1200 as well.")


if __name__ == "__main__":
    main()
