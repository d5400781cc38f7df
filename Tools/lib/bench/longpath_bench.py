"""`Tools/bench longpath`: a file over an emulated long path (Tools/natlab,
two hosts without NAT, delay and loss on every end host), chatcli send ->
receive against a plain TCP transfer of the same file between the same two
hosts, runs interleaved, in the same lab.

Phases, each in a fresh lab (`natlab up --left none --right none`, then
`natlab serve --no-turn`):
  ceiling      delay 0, loss 0, no delayer: what the lab's veths, bridge and
               iptables rules carry;
  delayer      delay 0, loss 0, every packet through the NFQUEUE delayers
               (`natlab up --delayer`): their cost alone;
  long path    --delay-ms D with each --loss setting; TCP on port 5201 is
               dropped with the same probability as UDP (`--loss-tcp-port`).
The long-path ratios (chatcli / TCP) are judged against the issue's targets
(>= 70 % without loss, >= 50 % with); the ceilings and the delayers' CPU use
say whether the emulator could be what limits them.

Rates run from the receiver's first progress report with data to the end:
chatcli reports when it accepts and then at most every 0.25 s as data
arrives, and the TCP receiver is sampled the same way, so both skip alike
the first moments of slow start (a transfer done within 0.25 s counts from
the accept); "total" is the receiving process's whole run (pairing,
ICE, DTLS and SCTP setup included for chatcli). Both receivers write the file
to disk; its SHA-256 is checked against the original. A transfer that has
not finished after --timeout seconds is stopped: a MISS with the rate so far.
"""
import argparse
import hashlib
import json
import os
import selectors
import signal
import statistics
import subprocess
import sys
import threading
import time

SERVER = "http://198.18.0.10:8080"
LEFT_IP, RIGHT_IP = "198.18.0.21", "198.18.0.22"
TCP_PORT = 5201
STATE_ROOT = "/run/chatcli-natlab"
TARGETS = {False: 0.70, True: 0.50}  # lossy? -> chatcli / TCP at least
CLK_TCK = os.sysconf("SC_CLK_TCK")


def say(args, text):
    if not args.json:
        print(text, file=sys.stderr, flush=True)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def natlab(args, *words, check=True):
    cmd = [args.natlab, *words[:1], "--prefix", args.prefix, *words[1:]]
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and result.returncode != 0:
        raise SystemExit(f"bench: natlab {words[0]} failed: {result.stdout.strip()[-400:]}")
    return result.stdout


def in_host(args, host, command, **kwargs):
    """COMMAND in HOST's namespace (natlab exec ends in exec, so the PID is COMMAND's)."""
    return subprocess.Popen([args.natlab, "exec", "--prefix", args.prefix, host, "--", *command], **kwargs)


def stop(proc):
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


class Delayers:
    """CPU time of the lab's delayer processes (one per end host)."""

    def __init__(self, args):
        self.pids = {}
        for host in ("pub", "left", "right"):
            try:
                with open(f"{STATE_ROOT}/{args.prefix}/delayer-{host}.pid") as f:
                    self.pids[host] = int(f.read())
            except (OSError, ValueError):
                pass

    def sample(self):
        return {h: cpu_ticks(p) for h, p in self.pids.items()}

    def busiest(self, before, seconds):
        """Highest CPU use of one delayer since `before`, in % of one core."""
        after = self.sample()
        use = [(after[h] - before[h]) / CLK_TCK / seconds * 100 for h in self.pids
               if before.get(h) is not None and after.get(h) is not None]
        return round(max(use), 1) if use and seconds > 0 else None


class Lines:
    """Lines of a child's stdout with their arrival time, waited for up to a deadline."""

    def __init__(self, proc):
        self.proc = proc
        self.buffer = b""
        self.sel = selectors.DefaultSelector()
        self.sel.register(proc.stdout, selectors.EVENT_READ)
        self.eof = False

    def next(self, deadline):
        """(time, line) or None at the deadline or the end of the output."""
        while True:
            if b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                return time.monotonic(), line.decode(errors="replace")
            if self.eof:
                return None
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                return None
            data = os.read(self.proc.stdout.fileno(), 65536)
            if not data:
                self.eof = True
            self.buffer += data


def events(lines, deadline):
    while (item := lines.next(deadline)) is not None:
        t, line = item
        try:
            yield t, json.loads(line)
        except ValueError:
            continue


def chatcli_run(args, source, out, deadline):
    """One chatcli send (left) -> receive (right)."""
    size = os.path.getsize(source)
    cc = ["env", f"CHATCLI_CONGESTION_CONTROL={args.chatcli_cc}"] if args.chatcli_cc else []
    sender = in_host(args, "left", [*cc, args.chatcli, "send", source, "--json", "--server", SERVER],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    receiver = None
    row = {"complete": False}
    try:
        code = next((e["code"] for _, e in events(Lines(sender), deadline) if e.get("event") == "code"), None)
        if code is None:
            return dict(row, error="the sender printed no code")
        # Its progress events must not fill the pipe and stall it.
        threading.Thread(target=lambda: sender.stdout.read(), daemon=True).start()
        start = time.monotonic()
        receiver = in_host(args, "right", [*cc, args.chatcli, "receive", code, "--out", out, "--yes", "--json", "--server", SERVER],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        first = last = accepted = None
        for t, e in events(Lines(receiver), deadline):
            kind = e.get("event")
            if kind == "progress" and e.get("bytes"):
                first = first or (t, e["bytes"])
                last = (t, e["bytes"])
            elif kind == "progress":
                accepted = accepted or (t, 0)
            elif kind == "transfer_done":
                first = first or accepted  # done within the first 0.25 s
                last = (t, size)
                row["complete"] = True
                break
            elif kind == "error":
                row["error"] = e.get("message", "error")
                break
        if row["complete"]:
            try:  # it exits once the sender has the verdict
                receiver.wait(timeout=max(1.0, deadline - time.monotonic()))
                row["total_s"] = round(time.monotonic() - start, 3)
            except subprocess.TimeoutExpired:
                pass
        row.update(rate(first, last, size))
        return row
    finally:
        for p in (receiver, sender):
            if p is not None:
                stop(p)


def tcp_run(args, source, out, deadline):
    """One TCP transfer left -> right (tcp_transfer.py)."""
    size = os.path.getsize(source)
    ready = out + ".ready"
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tcp_transfer.py")
    start = time.monotonic()
    receiver = in_host(args, "right", [sys.executable, script, "receive", "--bind", f"{RIGHT_IP}:{TCP_PORT}",
                                       "--out", out, "--ready", ready, "--cc", args.tcp_cc], stdout=subprocess.PIPE)
    sender = None
    row = {"complete": False}
    try:
        while not os.path.exists(ready):
            if receiver.poll() is not None or time.monotonic() > deadline:
                return dict(row, error="the TCP receiver did not start")
            time.sleep(0.05)
        sender = in_host(args, "left", [sys.executable, script, "send", "--to", f"{RIGHT_IP}:{TCP_PORT}",
                                        "--file", source, "--cc", args.tcp_cc], stdout=subprocess.PIPE)
        first = last = accepted = None
        for t, e in events(Lines(receiver), deadline):
            if e.get("event") == "progress" and e["bytes"]:
                first = first or (e["now"], e["bytes"])
                last = (e["now"], e["bytes"])
            elif e.get("event") == "progress":
                accepted = accepted or (e["now"], 0)
            elif e.get("event") == "done":
                row.update(complete=e["bytes"] == size, total_s=round(time.monotonic() - start, 3), cc=e["cc"])
                first = first or accepted
                last = (e["end"], e["bytes"])
                break
        if sender.stdout:
            sent = sender.stdout.readline() if row["complete"] else b""
            if sent:
                row["cc"] = json.loads(sent).get("cc", row.get("cc"))
        row.update(rate(first, last, size))
        return row
    finally:
        for p in (receiver, sender):
            if p is not None:
                stop(p)


def rate(first, last, size):
    if not first or not last or last[0] <= first[0]:
        return {"bytes": last[1] if last else 0, "seconds": None, "mb_per_s": None}
    seconds = last[0] - first[0]
    return {"bytes": last[1], "seconds": round(seconds, 3), "mb_per_s": round((last[1] - first[1]) / 1e6 / seconds, 2)}


def phases(args):
    result = []
    if args.ceiling:
        result.append(("ceiling", 0, 0.0, []))
        result.append(("delayer", 0, 0.0, ["--delayer"]))
    for loss in args.loss:
        opts = ["--delay-ms", str(args.delay_ms), "--loss-pct", f"{loss:g}"]
        if loss:
            opts += ["--loss-tcp-port", str(TCP_PORT)]
        if args.rate_mbit:
            # The queue in bytes: --queue-bdp bandwidth-delay products of the round trip.
            queue = int(args.rate_mbit * 125_000 * 2 * args.delay_ms / 1000 * args.queue_bdp)
            opts += ["--rate-mbit", str(args.rate_mbit), "--queue-bytes", str(queue)]
        result.append(("long path", args.delay_ms, loss, opts))
    return result


def run_phase(args, name, delay, loss, opts, source, digest, rows):
    label = f"{name} (delay {delay} ms, loss {loss:g} %)"
    say(args, f"==> {label}: natlab up, serve")
    natlab(args, "up", "--left", "none", "--right", "none", *opts)
    natlab(args, "serve", "--no-turn", "--chatcli", args.chatcli)
    default_cc = {h: natlab(args, "exec", h, "--", "sysctl", "-n", "net.ipv4.tcp_congestion_control").strip()
                  for h in ("left", "right")}
    delayers = Delayers(args)
    size = os.path.getsize(source)
    for n in range(args.runs):
        tools = ["chatcli", "tcp"] if n % 2 == 0 else ["tcp", "chatcli"]  # alternate who goes first
        for tool in tools:
            out = os.path.join(args.work, f"out-{len(rows)}")
            os.makedirs(out)
            received = os.path.join(out, os.path.basename(source)) if tool == "chatcli" else os.path.join(out, "tcp.bin")
            before = delayers.sample()
            t0 = time.monotonic()
            deadline = t0 + args.timeout
            row = (chatcli_run if tool == "chatcli" else tcp_run)(args, source, out if tool == "chatcli" else received, deadline)
            timed_out = not row["complete"] and "error" not in row and time.monotonic() >= deadline
            verified = row["complete"] and os.path.exists(received) and sha256(received) == digest
            if os.path.exists(received):
                os.remove(received)
            row = {"phase": name, "delay_ms": delay, "loss_pct": loss, "tool": tool, "run": n + 1, "size": size,
                   **row, "verified": verified, "timed_out": timed_out, "timeout": args.timeout,
                   "delayer_cpu_pct": delayers.busiest(before, time.monotonic() - t0),
                   "namespace_default_cc": default_cc["left"]}
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                say(args, "    " + describe(row))
    natlab(args, "down", check=False)


def describe(row):
    what = f"{row['tool']:<7} run {row['run']}: "
    speed = f"{row['mb_per_s']:.2f} MB/s" if row["mb_per_s"] is not None else "no rate"
    if row["timed_out"]:
        return (what + f"{'MISS: ' if row['tool'] == 'chatcli' else ''}did not finish in {row['timeout']:g} s"
                f" ({row['bytes'] / 2**20:.1f} of {row['size'] / 2**20:.1f} MiB, {speed} so far; that rate counts).")
    if not row["complete"]:
        return what + f"FAILED: {row.get('error', 'the transfer ended early')} ({row['bytes'] / 2**20:.1f} MiB, {speed})."
    extra = f", total {row['total_s']:.1f} s" if row.get("total_s") else ""
    cc = f", {row['cc']}" if row.get("cc") else ""
    cpu = f", delayer CPU {row['delayer_cpu_pct']:.0f} %" if row.get("delayer_cpu_pct") is not None else ""
    return what + f"{speed}{extra}{cc}{cpu}, SHA-256 {'ok' if row['verified'] else 'MISMATCH'}"


def median_rate(rows):
    """Median over runs; a run that did not finish counts with its rate so far."""
    rates = [r["mb_per_s"] or 0.0 for r in rows]
    return statistics.median(rates) if rates else None


def cell(rows, median):
    """Runs and median of one tool: "9.1, 9.5* (med 9.3)"; * = stopped early."""
    if median is None:
        return "-"
    runs = ", ".join("-" if r["mb_per_s"] is None else mb(r["mb_per_s"]) + ("" if r["complete"] else "*") for r in rows)
    return f"{runs} (med {mb(median)})"


def mb(rate):
    return f"{rate:.2f}" if rate < 10 else f"{rate:.1f}"


def summary(args, rows):
    lines, verdicts = [], []
    groups = {}
    for r in rows:
        groups.setdefault((r["phase"], r["delay_ms"], r["loss_pct"]), {}).setdefault(r["tool"], []).append(r)
    ceilings = {}
    lines.append(f"{'phase':<10} {'delay':>6} {'loss':>5} {'chatcli MB/s':>26} {'TCP MB/s':>26} {'ratio':>6}  {'delayer CPU':>11}  verdict")
    for (phase, delay, loss), tools in groups.items():
        c, t = tools.get("chatcli", []), tools.get("tcp", [])
        mc, mt = median_rate(c), median_rate(t)
        ratio = mc / mt if mc is not None and mt else None
        cpu = [r["delayer_cpu_pct"] for r in c + t if r["delayer_cpu_pct"] is not None]
        verdict = ""
        if phase == "long path":
            target = TARGETS[loss > 0]
            failed = [r for r in c if not r["verified"] and not r["timed_out"]]
            ok = ratio is not None and ratio >= target and not failed
            stopped = sum(r["timed_out"] for r in c + t)
            verdict = (f"{'PASS' if ok else 'MISS'} (target >= {target:.0%})"
                       + (f"; {len(failed)} chatcli run(s) failed" if failed else "")
                       + (f"; {stopped} run(s) stopped at the timeout" if stopped else ""))
            verdicts.append({"delay_ms": delay, "loss_pct": loss, "chatcli_mb_per_s": mc, "tcp_mb_per_s": mt,
                             "ratio": round(ratio, 3) if ratio is not None else None, "target": target,
                             "pass": ok})
        else:
            ceilings[phase] = (mc, mt)

        lines.append(f"{phase:<10} {delay:>4}ms {loss:>4g}% {cell(c, mc):>26} {cell(t, mt):>26} "
                     f"{'-' if ratio is None else f'{ratio:.2f}':>6}  {f'max {max(cpu):.0f} %' if cpu else '-':>11}  {verdict}")
    # Could the emulator be the limit? The delayers' own limit is a core each
    # (Python): what a tool got through them at delay 0, scaled to a full
    # core by their CPU use then, estimates what they can carry of its
    # packets (chatcli's are 1200-1400 bytes; TCP's are GSO packets). And
    # when the delayers lower a tool's rate at delay 0 (the kernel's queue
    # path, wake-up latency), that lower rate is a ceiling too. A long-path
    # rate at half of either, or a delayer busier than 80 % of a core on the
    # long path, is suspect.
    emulator = None
    if "ceiling" in ceilings and "delayer" in ceilings:
        limits, notes, capacity = [], [], {}
        for i, tool, key in ((0, "chatcli", "chatcli"), (1, "TCP", "tcp")):
            plain, delayed = ceilings["ceiling"][i], ceilings["delayer"][i]
            cpu = [r["delayer_cpu_pct"] for r in rows if r["phase"] == "delayer" and r["tool"] == key
                   and r["delayer_cpu_pct"] is not None]
            if not plain or not delayed or not cpu or max(cpu) < 5:  # below 5 %: too few ticks to scale
                continue
            capacity[key] = round(delayed * 100 / max(cpu), 1)
            for v in verdicts:
                mb = v["chatcli_mb_per_s" if i == 0 else "tcp_mb_per_s"]
                if mb and mb >= 0.5 * capacity[key]:
                    limits.append(f"{tool} at {v['loss_pct']:g} % loss got {mb:.1f} MB/s, {mb / capacity[key]:.0%} of the"
                                  f" about {capacity[key]:.0f} MB/s a delayer carries of it at a full core")
                elif mb and delayed < 0.8 * plain and mb >= 0.5 * delayed:
                    limits.append(f"{tool} at {v['loss_pct']:g} % loss got {mb:.1f} MB/s, {mb / delayed:.0%} of the"
                                  f" {delayed:.1f} MB/s it gets through the delayers at delay 0 ({plain:.1f} without them)")
                elif mb and mb >= 0.8 * max(plain, delayed):
                    notes.append(f"{tool} at {v['loss_pct']:g} % loss ({mb:.1f} MB/s) is near what it gets here at delay 0"
                                 f" ({max(plain, delayed):.1f} MB/s): its own ceiling on this machine now, not the path's")
        busy = [r["delayer_cpu_pct"] for r in rows if r["phase"] == "long path" and r["delayer_cpu_pct"] is not None]
        if busy and max(busy) >= 80:
            limits.append(f"a delayer used {max(busy):.0f} % of a core during a long-path run")
        emulator = {"ceiling": ceilings["ceiling"], "delayer": ceilings["delayer"], "delayer_capacity": capacity,
                    "delayer_cpu_pct_max": max(busy) if busy else None, "limits": limits, "notes": notes}
    return lines, verdicts, emulator


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--natlab", required=True)
    ap.add_argument("--chatcli", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--size-mb", type=int, default=64)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--delay-ms", type=int, default=50)
    ap.add_argument("--loss", default="0 1")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--tcp-cc", default="cubic")
    ap.add_argument("--chatcli-cc", default="")
    ap.add_argument("--rate-mbit", type=int, default=0)
    ap.add_argument("--queue-bdp", type=float, default=1.0)
    ap.add_argument("--no-ceiling", dest="ceiling", action="store_false")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    args.loss = [float(x) for x in args.loss.split()]

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    source = os.path.join(args.work, "payload.bin")
    with open(source, "wb") as f:
        for _ in range(args.size_mb):
            f.write(os.urandom(1 << 20))
    digest = sha256(source)
    rows = []
    try:
        for phase in phases(args):
            run_phase(args, *phase, source, digest, rows)
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        natlab(args, "down", check=False)

    lines, verdicts, emulator = summary(args, rows)
    if args.json:
        print(json.dumps({"summary": verdicts, "emulator": emulator, "tcp_cc": args.tcp_cc,
                          "namespace_default_cc": rows[0]["namespace_default_cc"] if rows else None}), flush=True)
        return
    print(f"\n{args.size_mb} MiB file, left -> right over natlab (no NAT), {args.runs} runs each, medians; "
          f"* = stopped after {args.timeout:g} s (rate so far)", file=sys.stderr)
    print(f"TCP: {args.tcp_cc} per socket (the namespaces' default is {rows[0]['namespace_default_cc'] if rows else '?'}),"
          " kernel default buffers; with loss, TCP port 5201 is dropped like UDP (natlab --loss-tcp-port)", file=sys.stderr)
    for line in lines:
        print(line, file=sys.stderr)
    if emulator:
        ceiling = emulator["ceiling"]
        delayer = emulator["delayer"]
        fmt = lambda pair: f"chatcli {pair[0]:.1f}, TCP {pair[1]:.1f} MB/s" if pair and None not in pair else "-"
        print(f"Emulator: {fmt(ceiling)} with no delayer, {fmt(delayer)} through the delayers (delay 0).", file=sys.stderr)
        cpu = emulator["delayer_cpu_pct_max"]
        cap = emulator["delayer_capacity"]
        if cap:
            print("A delayer at a full core would carry about " + ", ".join(f"{v:.0f} MB/s of {k}" for k, v in cap.items())
                  + " (scaled from its CPU use at delay 0).", file=sys.stderr)
        if emulator["limits"]:
            print("The emulator may limit the long-path figures: " + "; ".join(emulator["limits"]) + ".", file=sys.stderr)
        else:
            print("The emulator is not the limit: every long-path median is below half of what the delayers carry, and"
                  f" none used more than {cpu if cpu is not None else 0:.0f} % of a core on the long path.", file=sys.stderr)
        for note in emulator["notes"]:
            print(f"Note: {note}.", file=sys.stderr)


main()
