"""The table and target verdicts of `Tools/bench group` (group_bench.py's rows)."""
import statistics
import sys

CONNECT_TARGET_S = 2.0       # everyone connected within 2 s of the last join
FAN_OUT_P99_TARGET_MS = 50   # on loopback
PER_MEMBER_TARGET_MB = 8     # memory per extra member


def verdict(ok):
    return "PASS" if ok else "MISS"


def mb(kib):
    return kib / 1024


def per_extra_member(rows, key):
    """(mean peak RSS at the largest size - at the smallest) / the members
    between them, in MB; None with one size."""
    small, large = min(rows, key=lambda r: r["members"]), max(rows, key=lambda r: r["members"])
    if large["members"] == small["members"]:
        return None
    return (mb(statistics.mean(large[key])) - mb(statistics.mean(small[key]))) / (large["members"] - small["members"])


def print_table(all_rows, args, out=sys.stderr):
    def p(line=""):
        print(line, file=out)

    baseline = [r for r in all_rows if r.get("tool") == "baseline"]
    rows = [r for r in all_rows if r.get("tool", "chatcli") == "chatcli"]

    p(f"\ngroup rooms, real processes on 127.0.0.1 (release build, one chatcli serve): {args.rounds} lines per phase, "
      f"one at a time, senders in turn; the stream is {args.stream_mb} MB of 100-byte lines piped into the last member")
    head = (f"{'tool':<8} {'members':>7} {'connect s':>9} {'burst s':>7} {'idle med/p99 ms':>16} {'stream med/p99 ms':>18} "
            f"{'stream MB/s':>11} {'join CPU ms':>11} {'CPU ms/line':>11} {'peak RSS MB':>11} {'verified':>8}")
    p(head)
    for r in all_rows:
        idle, stream = r["idle"], r["stream"]
        hwm = statistics.mean(r["hwm_kib"])
        p(f"{r.get('tool', 'chatcli'):<8} {r['members']:>7} {r['connect_s']:>9.3f} {r['burst_connect_s']:>7.3f} "
          f"{idle.get('median_ms', float('nan')):>7.1f} / {idle.get('p99_ms', float('nan')):>6.1f} "
          f"{stream.get('median_ms', float('nan')):>8.1f} / {stream.get('p99_ms', float('nan')):>7.1f} "
          f"{stream['mb_per_s_per_receiver']:>11.2f} {r['join_cpu_ms_last']:>11.0f} {r['idle_cpu_ms_per_line']:>11.2f} "
          f"{mb(hwm):>11.1f} {str(r['verified']):>8}")
    p("connect s: last join's start -> every member has a proven `connected` for each other; burst s: the same for the "
      "N-2 joins before it, started together")
    p("join CPU ms: the last joiner's CPU until the mesh was whole; CPU ms/line: all members' CPU over the idle rounds, "
      "per line; peak RSS: mean VmHWM of the members before the stream")
    for r in all_rows:
        s = r["stream"]
        others, own = s["to_the_others"], s["to_streaming_member"]
        p(f"  {r.get('tool', 'chatcli')}, {r['members']} members: with the stream, to the other receivers median {others.get('median_ms', float('nan')):.1f} / "
          f"p99 {others.get('p99_ms', float('nan')):.1f} ms, to the streaming member {own.get('median_ms', float('nan')):.1f} / "
          f"{own.get('p99_ms', float('nan')):.1f} ms; stream {s['bytes_per_receiver'] / 1e6:.2f} MB to each of "
          f"{r['members'] - 1} in {s['seconds']} s (the rounds took its first {s['rounds_s']} s; the machine "
          f"{s['machine_busy_percent']} % busy then, {r['idle']['machine_busy_percent']} % in the idle rounds); "
          f"CPU: streaming member {s['cpu_s_sender']} s, each receiver {s['cpu_s_receiver_mean']} s")
        f = r.get("file")
        if f:
            p(f"    while a person sends a {f['file_bytes'] / 2**20:.0f} MiB file to the group: to the others median "
              f"{f['to_the_others'].get('median_ms', float('nan')):.1f} / p99 {f['to_the_others'].get('p99_ms', float('nan')):.1f} ms, "
              f"to the sender {f['to_the_sender'].get('median_ms', float('nan')):.1f} / {f['to_the_sender'].get('p99_ms', float('nan')):.1f} ms "
              f"({f['rounds_during_transfer']} rounds during the transfer); the file to each of {r['members'] - 1} at "
              f"{f['mb_per_s_per_receiver']} MB/s in {f['seconds']} s, SHA-256 {'ok' if f['verified'] else 'NOT ok'}; "
              f"CPU: sender {f['cpu_s_sender']} s, each receiver {f['cpu_s_receiver_mean']} s")
        p(f"    joining: the newcomer {r['newcomer_s']:.3f} s, {r['join_cpu_ms_last']:.0f} ms CPU, "
          f"each member already there {r['join_cpu_ms_others']:.0f} ms; peak RSS {mb(min(r['hwm_kib'])):.1f}-{mb(max(r['hwm_kib'])):.1f} MB, "
          f"after the stream {mb(min(r['hwm_after_stream_kib'])):.1f}-{mb(max(r['hwm_after_stream_kib'])):.1f} MB; "
          f"server CPU {r['server_cpu_s']} s, this harness {r['harness_cpu_s']} s; load before {' '.join(r['loadavg_before'])}"
          + (f"; errors: {r['errors'][:3]}" if r["errors"] else ""))
    for b in baseline:
        r = next((r for r in rows if r["members"] == b["members"]), None)
        if r:
            def cpu_per_mb(x):
                sent = x["stream"]["bytes_per_receiver"] * (x["members"] - 1) / 1e6
                return x["stream"]["cpu_s_sender"] * 1000 / sent if sent else float("nan")
            p(f"  chatcli / baseline, {b['members']} members: stream MB/s {r['stream']['mb_per_s_per_receiver'] / b['stream']['mb_per_s_per_receiver']:.2f}x, "
              f"streaming member's CPU per MB sent {cpu_per_mb(r) / cpu_per_mb(b):.2f}x ({cpu_per_mb(r):.0f} against {cpu_per_mb(b):.0f} ms/MB), "
              f"fan-out p99 with the stream {r['stream']['p99_ms']:.1f} against {b['stream']['p99_ms']:.1f} ms, idle {r['idle']['p99_ms']:.1f} against {b['idle']['p99_ms']:.1f} ms")
    connect = max(r["connect_s"] for r in rows)
    p99 = max(max(r["idle"].get("p99_ms", float("inf")), r["stream"].get("p99_ms", float("inf"))) for r in rows)
    p99_idle = max(r["idle"].get("p99_ms", float("inf")) for r in rows)
    extra = per_extra_member(rows, "hwm_kib")
    files = [r["file"] for r in rows if r.get("file")]
    p99_file = max((f.get("p99_ms", float("inf")) for f in files), default=None)
    p(f"targets: connected within {CONNECT_TARGET_S:g} s of the last join: worst {connect:.3f} s {verdict(connect <= CONNECT_TARGET_S)}; "
      f"fan-out p99 <= {FAN_OUT_P99_TARGET_MS} ms: idle worst {p99_idle:.1f} ms {verdict(p99_idle <= FAN_OUT_P99_TARGET_MS)}, "
      f"with the stream worst {p99:.1f} ms {verdict(p99 <= FAN_OUT_P99_TARGET_MS)}"
      + ("" if p99_file is None else f", while a file goes worst {p99_file:.1f} ms {verdict(p99_file <= FAN_OUT_P99_TARGET_MS)}")
      + ("" if extra is None else
         f"; memory per extra member <= {PER_MEMBER_TARGET_MB} MB: {extra:.2f} MB {verdict(extra <= PER_MEMBER_TARGET_MB)}"))
