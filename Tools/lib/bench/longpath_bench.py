"""`Tools/bench longpath`: a file over an emulated long path (Tools/natlab,
two hosts without NAT, delay and loss on every end host, a bottleneck of
--rate-mbit), chatcli send -> receive with each SCTP congestion control
against plain TCP transfers of the same file with each TCP congestion
control between the same two hosts, runs interleaved, in the same lab;
then one chatcli transfer against one TCP flow at a time through the same
bottleneck (--fairness seconds, longpath_fairness.py).

Phases, each in a fresh lab (`natlab up --left none --right none`, then
`natlab serve --no-turn`):
  ceiling      delay 0, loss 0, no delayer: what the lab's veths, bridge and
               iptables rules carry;
  delayer      delay 0, loss 0, every packet through the NFQUEUE delayers
               (`natlab up --delayer`): their cost alone;
  long path    --delay-ms D with each --loss setting; TCP on port 5201 is
               dropped with the same probability as UDP (`--loss-tcp-port`).
The long-path figures are judged against issue 28's targets (TARGETS); the
ceilings and the delayers' CPU use say whether the emulator could be what
limits them.

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
import json
import os
import selectors
import signal
import statistics
import subprocess
import sys
import threading
import time
import types

import longpath_chat
import longpath_fairness

from report import sha256, write_payload

SERVER = "http://198.18.0.10:8080"
LEFT_IP, RIGHT_IP = "198.18.0.21", "198.18.0.22"
TCP_PORT = 5201
STATE_ROOT = "/run/chatcli-natlab"
# Issue 28's targets for chatcli's default (BBR), by loss in %: at least
# `mb` MB/s, `bbr` times TCP BBR's median and `cubic` times TCP CUBIC's.
TARGETS = {0.0: {"bbr": 0.9}, 1.0: {"mb": 8.0, "bbr": 1.0, "cubic": 40.0}, 3.0: {"mb": 4.0}}
DEFAULT_TOOLS = "chatcli:bbr chatcli:cubic tcp:cubic tcp:bbr"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def say(args, text):
    if not args.json:
        print(text, file=sys.stderr, flush=True)


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


def chatcli_command(args, cc, *words):
    env = ["env", f"CHATCLI_CONGESTION_CONTROL={cc}"] if cc else []
    if getattr(args, "trace", None):
        env = (env or ["env"]) + ["CHATCLI_DEBUG_SCTP=1"]
    return [*env, args.chatcli, *words]


def trace_file(args, role):
    """Where a chatcli's stderr goes: DEVNULL, or with --trace a file named for the run."""
    if not getattr(args, "trace", None):
        return subprocess.DEVNULL
    return open(os.path.join(args.trace, f"{args.trace_label}-{role}.txt"), "w")


def chatcli_run(args, cc, source, out, deadline):
    """One chatcli send (left) -> receive (right)."""
    size = os.path.getsize(source)
    sender = in_host(args, "left", chatcli_command(args, cc, "send", source, "--json", "--server", SERVER),
                     stdout=subprocess.PIPE, stderr=trace_file(args, "sender"))
    receiver = None
    row = {"complete": False}
    try:
        code = next((e["code"] for _, e in events(Lines(sender), deadline) if e.get("event") == "code"), None)
        if code is None:
            return dict(row, error="the sender printed no code")
        # Its progress events must not fill the pipe and stall it.
        threading.Thread(target=lambda: sender.stdout.read(), daemon=True).start()
        start = time.monotonic()
        receiver = in_host(args, "right", chatcli_command(args, cc, "receive", code, "--out", out, "--yes", "--json", "--server", SERVER),
                           stdout=subprocess.PIPE, stderr=trace_file(args, "receiver"))
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


def tcp_run(args, cc, source, out, deadline):
    """One TCP transfer left -> right (tcp_transfer.py)."""
    size = os.path.getsize(source)
    ready = out + ".ready"
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tcp_transfer.py")
    start = time.monotonic()
    receiver = in_host(args, "right", [sys.executable, script, "receive", "--bind", f"{RIGHT_IP}:{TCP_PORT}",
                                       "--out", out, "--ready", ready, "--cc", cc], stdout=subprocess.PIPE)
    sender = None
    row = {"complete": False}
    try:
        while not os.path.exists(ready):
            if receiver.poll() is not None or time.monotonic() > deadline:
                return dict(row, error="the TCP receiver did not start")
            time.sleep(0.05)
        sender = in_host(args, "left", [sys.executable, script, "send", "--to", f"{RIGHT_IP}:{TCP_PORT}",
                                        "--file", source, "--cc", cc], stdout=subprocess.PIPE)
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


def lab_options(args, loss):
    opts = ["--delay-ms", str(args.delay_ms), "--loss-pct", f"{loss:g}"]
    if loss:
        opts += ["--loss-tcp-port", str(TCP_PORT)]
    if args.rate_mbit:
        # The queue in bytes: --queue-bdp bandwidth-delay products of the round trip.
        queue = int(args.rate_mbit * 125_000 * 2 * args.delay_ms / 1000 * args.queue_bdp)
        opts += ["--rate-mbit", str(args.rate_mbit), "--queue-bytes", str(queue)]
    return opts


def phases(args):
    """(name, delay, loss, natlab options, tools): the ceilings measure the
    first chatcli and the first TCP tool only."""
    result = []
    if args.ceiling:
        first = [next(t for t in args.tools if t[0] == kind) for kind in ("chatcli", "tcp")]
        result.append(("ceiling", 0, 0.0, [], first))
        result.append(("delayer", 0, 0.0, ["--delayer"], first))
    for loss in args.loss:
        result.append(("long path", args.delay_ms, loss, lab_options(args, loss), args.tools))
    return result


def start_lab(args, opts):
    natlab(args, "up", "--left", "none", "--right", "none", *opts)
    natlab(args, "serve", "--no-turn", "--chatcli", args.chatcli)
    return natlab(args, "exec", "left", "--", "sysctl", "-n", "net.ipv4.tcp_congestion_control").strip()


def run_phase(args, name, delay, loss, opts, tools, source, digest, rows):
    label = f"{name} (delay {delay} ms, loss {loss:g} %)"
    say(args, f"==> {label}: natlab up, serve")
    default_cc = start_lab(args, opts)
    delayers = Delayers(args)
    size = os.path.getsize(source)
    for n in range(args.runs):
        # Each run starts with another tool, so none always goes first.
        for kind, cc in tools[n % len(tools):] + tools[:n % len(tools)]:
            out = os.path.join(args.work, f"out-{len(rows)}")
            os.makedirs(out)
            received = os.path.join(out, os.path.basename(source)) if kind == "chatcli" else os.path.join(out, "tcp.bin")
            before = delayers.sample()
            t0 = time.monotonic()
            deadline = t0 + args.timeout
            run = chatcli_run if kind == "chatcli" else tcp_run
            args.trace_label = f"{name.replace(' ', '-')}-loss{loss:g}-{kind}-{cc}-run{n + 1}"
            row = run(args, cc, source, out if kind == "chatcli" else received, deadline)
            timed_out = not row["complete"] and "error" not in row and time.monotonic() >= deadline
            verified = row["complete"] and os.path.exists(received) and sha256(received) == digest
            if os.path.exists(received):
                os.remove(received)
            row = {"phase": name, "delay_ms": delay, "loss_pct": loss, "tool": f"{kind} {cc}", "kind": kind, "cc": cc,
                   "run": n + 1, "size": size, **row, "verified": verified, "timed_out": timed_out,
                   "timeout": args.timeout, "delayer_cpu_pct": delayers.busiest(before, time.monotonic() - t0),
                   "namespace_default_cc": default_cc}
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                say(args, "    " + describe(row))
    natlab(args, "down", check=False)


def describe(row):
    what = f"{row['tool']:<13} run {row['run']}: "
    speed = f"{row['mb_per_s']:.2f} MB/s" if row["mb_per_s"] is not None else "no rate"
    if row["timed_out"]:
        return (what + f"{'MISS: ' if row['kind'] == 'chatcli' else ''}did not finish in {row['timeout']:g} s"
                f" ({row['bytes'] / 2**20:.1f} of {row['size'] / 2**20:.1f} MiB, {speed} so far; that rate counts).")
    if not row["complete"]:
        return what + f"FAILED: {row.get('error', 'the transfer ended early')} ({row['bytes'] / 2**20:.1f} MiB, {speed})."
    extra = f", total {row['total_s']:.1f} s" if row.get("total_s") else ""
    cpu = f", delayer CPU {row['delayer_cpu_pct']:.0f} %" if row.get("delayer_cpu_pct") is not None else ""
    return what + f"{speed}{extra}{cpu}, SHA-256 {'ok' if row['verified'] else 'MISMATCH'}"


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


def ratio(a, b):
    return a / b if a is not None and b else None


def judge(loss, medians):
    """Issue 28's targets for chatcli BBR at this loss: (text, pass) pairs."""
    target, mine = TARGETS.get(loss, {}), medians.get("chatcli bbr")
    checks = []
    if "mb" in target:
        checks.append((f">= {target['mb']:g} MB/s", mine is not None and mine >= target["mb"]))
    for cc in ("bbr", "cubic"):
        r = ratio(mine, medians.get(f"tcp {cc}"))
        if cc in target and r is not None:
            checks.append((f">= {target[cc]:g}x TCP {cc.upper()}", r >= target[cc]))
    return checks


def summary(args, rows):
    lines, verdicts, ceilings = [], [], {}
    groups = {}
    for r in rows:
        groups.setdefault((r["phase"], r["delay_ms"], r["loss_pct"]), {}).setdefault(r["tool"], []).append(r)
    names = [f"{k} {c}" for k, c in args.tools]
    width = 22 if args.runs > 1 else 8
    lines.append(f"{'phase':<10} {'loss':>5} " + " ".join(f"{n:>{width}}" for n in names)
                 + f" {'/TCP BBR':>8} {'/TCP CUBIC':>10} {'delayer':>7}  verdict")
    for (phase, delay, loss), tools in groups.items():
        medians = {name: median_rate(tools.get(name, [])) for name in names}
        cpu = [r["delayer_cpu_pct"] for t in tools.values() for r in t if r["delayer_cpu_pct"] is not None]
        verdict, vs_bbr, vs_cubic = "", None, None
        if phase == "long path":
            vs_bbr, vs_cubic = ratio(medians.get("chatcli bbr"), medians.get("tcp bbr")), ratio(medians.get("chatcli bbr"), medians.get("tcp cubic"))
            checks = judge(loss, medians)
            failed = [r for t in tools.values() for r in t if r["kind"] == "chatcli" and not r["verified"] and not r["timed_out"]]
            stopped = sum(r["timed_out"] for t in tools.values() for r in t)
            verdict = ", ".join(f"{text} {'PASS' if ok else 'MISS'}" for text, ok in checks)
            notes = ([f"{len(failed)} chatcli run(s) failed"] if failed else []) + ([f"{stopped} stopped at the timeout"] if stopped else [])
            verdict = "; ".join(([verdict] if verdict else []) + notes)
            verdicts.append({"delay_ms": delay, "loss_pct": loss, "medians": medians, "chatcli_bbr_per_tcp_bbr": vs_bbr,
                             "chatcli_bbr_per_tcp_cubic": vs_cubic, "pass": all(ok for _, ok in checks) and not failed})
        else:
            ceilings[phase] = {kind: median_rate([r for t in tools.values() for r in t if r["kind"] == kind])
                               for kind in ("chatcli", "tcp")}
        cells = " ".join(f"{cell(tools.get(n, []), medians[n]) if args.runs > 1 else (mb(medians[n]) if medians[n] is not None else '-'):>{width}}"
                         for n in names)
        fmt = lambda r: "-" if r is None else (f"{r:.2f}" if r < 10 else f"{r:.0f}")
        lines.append(f"{phase:<10} {loss:>4g}% {cells} {fmt(vs_bbr):>8} {fmt(vs_cubic):>10} "
                     f"{f'{max(cpu):.0f} %' if cpu else '-':>7}  {verdict}")
    return lines, verdicts, emulator_check(rows, ceilings, verdicts)


def emulator_check(rows, ceilings, verdicts):
    """Could the emulator be the limit? The delayers' own limit is a core
    each (Python): what a tool got through them at delay 0, scaled to a
    full core by their CPU use then, estimates what they can carry of its
    packets (chatcli's are 1200-1400 bytes; TCP's are GSO packets). And
    when the delayers lower a tool's rate at delay 0 (the kernel's queue
    path, wake-up latency), that lower rate is a ceiling too. A long-path
    rate at half of either, or a delayer busier than 80 % of a core on
    the long path, is suspect."""
    if "ceiling" not in ceilings or "delayer" not in ceilings:
        return None
    limits, notes, capacity = [], [], {}
    for kind in ("chatcli", "tcp"):
        plain, delayed = ceilings["ceiling"][kind], ceilings["delayer"][kind]
        cpu = [r["delayer_cpu_pct"] for r in rows if r["phase"] == "delayer" and r["kind"] == kind
               and r["delayer_cpu_pct"] is not None]
        if not plain or not delayed or not cpu or max(cpu) < 5:  # below 5 %: too few ticks to scale
            continue
        capacity[kind] = round(delayed * 100 / max(cpu), 1)
        for v in verdicts:
            for tool, rate in v["medians"].items():
                if not tool.startswith(kind) or not rate:
                    continue
                if rate >= 0.5 * capacity[kind]:
                    limits.append(f"{tool} at {v['loss_pct']:g} % loss got {rate:.1f} MB/s, {rate / capacity[kind]:.0%} of the"
                                  f" about {capacity[kind]:.0f} MB/s a delayer carries of it at a full core")
                elif delayed < 0.8 * plain and rate >= 0.5 * delayed:
                    limits.append(f"{tool} at {v['loss_pct']:g} % loss got {rate:.1f} MB/s, {rate / delayed:.0%} of the"
                                  f" {delayed:.1f} MB/s it gets through the delayers at delay 0 ({plain:.1f} without them)")
                elif rate >= 0.8 * max(plain, delayed):
                    notes.append(f"{tool} at {v['loss_pct']:g} % loss ({rate:.1f} MB/s) is near what it gets here at delay 0"
                                 f" ({max(plain, delayed):.1f} MB/s): its own ceiling on this machine now, not the path's")
    busy = [r["delayer_cpu_pct"] for r in rows if r["phase"] != "ceiling" and r["phase"] != "delayer"
            and r["delayer_cpu_pct"] is not None]
    if busy and max(busy) >= 80:
        limits.append(f"a delayer used {max(busy):.0f} % of a core during a long-path run")
    return {"ceiling": ceilings["ceiling"], "delayer": ceilings["delayer"], "delayer_capacity": capacity,
            "delayer_cpu_pct_max": max(busy) if busy else None, "limits": limits, "notes": notes}


def print_emulator(emulator):
    fmt = lambda c: f"chatcli {c['chatcli']:.1f}, TCP {c['tcp']:.1f} MB/s" if c and None not in c.values() else "-"
    print(f"Emulator: {fmt(emulator['ceiling'])} with no delayer, {fmt(emulator['delayer'])} through the delayers (delay 0).",
          file=sys.stderr)
    cpu, cap = emulator["delayer_cpu_pct_max"], emulator["delayer_capacity"]
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


def parse_tools(text):
    tools = []
    for word in text.split():
        kind, _, cc = word.partition(":")
        if kind not in ("chatcli", "tcp") or not cc:
            raise SystemExit(f"bench: --tools takes chatcli:CC and tcp:CC words, got '{word}'")
        tools.append((kind, cc))
    if not any(k == "chatcli" for k, _ in tools) or not any(k == "tcp" for k, _ in tools):
        raise SystemExit("bench: --tools needs at least one chatcli and one tcp transfer")
    return tools


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--natlab", required=True)
    ap.add_argument("--chatcli", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--size-mb", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--delay-ms", type=int, default=50)
    ap.add_argument("--loss", default="0 0.1 1 3")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--tools", default=DEFAULT_TOOLS)
    ap.add_argument("--rate-mbit", type=int, default=100)
    ap.add_argument("--queue-bdp", type=float, default=1.0)
    ap.add_argument("--fairness", type=int, default=60)
    ap.add_argument("--no-ceiling", dest="ceiling", action="store_false")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--trace")
    ap.add_argument("--chat-mb", type=int, default=1024)
    ap.add_argument("--chat-loss", default="0 1")
    args = ap.parse_args()
    args.loss = [float(x) for x in args.loss.split()]
    args.chat_loss = [float(x) for x in args.chat_loss.split()]
    args.tools = parse_tools(args.tools)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    source = os.path.join(args.work, "payload.bin")
    digest = write_payload(source, args.size_mb)
    rows, shares, chats = [], [], []
    lib = types.SimpleNamespace(in_host=in_host, chatcli_command=chatcli_command, events=events, Lines=Lines, stop=stop,
                                natlab=natlab, say=say, start_lab=start_lab, lab_options=lab_options, trace_file=trace_file, SERVER=SERVER,
                                RIGHT_IP=RIGHT_IP, TCP_PORT=TCP_PORT, PIPE=subprocess.PIPE, DEVNULL=subprocess.DEVNULL,
                                python=sys.executable)
    try:
        for phase in phases(args):
            run_phase(args, *phase, source, digest, rows)
        if args.fairness and args.rate_mbit:
            shares = longpath_fairness.run(args, lib, lab_options(args, 0.0))
        if args.chat_mb:
            chats = longpath_chat.run(args, lib)
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        natlab(args, "down", check=False)

    lines, verdicts, emulator = summary(args, rows)
    if args.json:
        print(json.dumps({"summary": verdicts, "fairness": shares, "chat": chats, "emulator": emulator,
                          "namespace_default_cc": rows[0]["namespace_default_cc"] if rows else None}), flush=True)
        return
    bottleneck = f"a {args.rate_mbit} Mbit/s bottleneck with a {args.queue_bdp:g}-BDP queue, " if args.rate_mbit else ""
    print(f"\n{args.size_mb} MiB file, left -> right over natlab (no NAT), {bottleneck}{args.delay_ms} ms each way;"
          f" {args.runs} runs each, medians; * = stopped after {args.timeout:g} s (rate so far); load average"
          f" {os.getloadavg()[0]:.1f} at the end", file=sys.stderr)
    print(f"TCP: congestion control set per socket (the namespaces' default is {rows[0]['namespace_default_cc'] if rows else '?'}),"
          " kernel default buffers; with loss, TCP port 5201 is dropped like UDP (natlab --loss-tcp-port)", file=sys.stderr)
    for line in lines:
        print(line, file=sys.stderr)
    for line in longpath_fairness.describe(shares):
        print(line, file=sys.stderr)
    for line in longpath_chat.describe(args, chats):
        print(line, file=sys.stderr)
    if emulator:
        print_emulator(emulator)


main()
