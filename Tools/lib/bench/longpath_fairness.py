"""`Tools/bench longpath`'s fairness runs: one chatcli transfer (its first
congestion control in --tools) against one TCP flow (each TCP congestion
control in --tools in turn) through the same bottleneck, in a fresh lab
without loss. chatcli starts first; TCP joins once chatcli's first data
arrived; both then run for --fairness seconds. The share is chatcli's part
of what both receivers got after the first sixth of that time (both
having left their startup), from their progress reports (every 0.25 s).
Files are sparse (chatcli and TCP send zeros; DTLS encrypts them anyway);
the TCP receiver writes to /dev/null, chatcli's copy is deleted.
"""
import os
import threading
import time

TARGET = (1 / 3, 2 / 3)


class Progress:
    """(time, bytes) samples of a receiver's JSON progress lines, read on a thread."""

    def __init__(self, lib, proc, key):
        self.samples, self.first_data = [], threading.Event()

        def read():
            for t, e in lib.events(lib.Lines(proc), time.monotonic() + 3600):
                if e.get("event") == "progress" and e.get("bytes"):
                    self.samples.append((e["now"] if key == "now" else t, e["bytes"]))
                    self.first_data.set()
        threading.Thread(target=read, daemon=True).start()

    def at(self, moment):
        """Bytes received by `moment` (the last sample before it)."""
        earlier = [b for t, b in self.samples if t <= moment]
        return earlier[-1] if earlier else 0


def one(args, lib, chatcli_cc, tcp_cc, source):
    out = os.path.join(args.work, f"fair-{tcp_cc}")
    os.makedirs(out, exist_ok=True)
    ready = os.path.join(out, "ready")
    procs = []
    args.trace_label = f"fairness-{chatcli_cc}-against-tcp-{tcp_cc}"
    try:
        sender = lib.in_host(args, "left", lib.chatcli_command(args, chatcli_cc, "send", source, "--json", "--server", lib.SERVER),
                             stdout=lib.PIPE, stderr=lib.trace_file(args, "sender"))
        procs.append(sender)
        code = next((e["code"] for _, e in lib.events(lib.Lines(sender), time.monotonic() + 30) if e.get("event") == "code"), None)
        if code is None:
            return {"tcp_cc": tcp_cc, "error": "the chatcli sender printed no code"}
        threading.Thread(target=lambda: sender.stdout.read(), daemon=True).start()
        receiver = lib.in_host(args, "right", lib.chatcli_command(args, chatcli_cc, "receive", code, "--out", out, "--yes", "--json",
                                                                  "--server", lib.SERVER), stdout=lib.PIPE, stderr=lib.trace_file(args, "receiver"))
        procs.append(receiver)
        chatcli = Progress(lib, receiver, "arrival")
        if not chatcli.first_data.wait(30):
            return {"tcp_cc": tcp_cc, "error": "chatcli sent no data within 30 s"}
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tcp_transfer.py")
        tcp_receiver = lib.in_host(args, "right", [lib.python, script, "receive", "--bind", f"{lib.RIGHT_IP}:{lib.TCP_PORT}",
                                                   "--out", "/dev/null", "--ready", ready, "--cc", tcp_cc], stdout=lib.PIPE)
        procs.append(tcp_receiver)
        while not os.path.exists(ready):
            if tcp_receiver.poll() is not None:
                return {"tcp_cc": tcp_cc, "error": "the TCP receiver did not start"}
            time.sleep(0.05)
        tcp = Progress(lib, tcp_receiver, "now")
        procs.append(lib.in_host(args, "left", [lib.python, script, "send", "--to", f"{lib.RIGHT_IP}:{lib.TCP_PORT}",
                                                "--file", source, "--cc", tcp_cc], stdout=lib.DEVNULL))
        if not tcp.first_data.wait(30):
            return {"tcp_cc": tcp_cc, "error": "TCP sent no data within 30 s"}
        start = time.monotonic()
        time.sleep(args.fairness)
        begin, end = start + args.fairness / 6, time.monotonic()
        c = chatcli.at(end) - chatcli.at(begin)
        t = tcp.at(end) - tcp.at(begin)
        seconds = end - begin
        link = args.rate_mbit * 125_000
        return {"chatcli_cc": chatcli_cc, "tcp_cc": tcp_cc, "seconds": round(seconds, 1),
                "chatcli_mb_per_s": round(c / seconds / 1e6, 2), "tcp_mb_per_s": round(t / seconds / 1e6, 2),
                "share": round(c / (c + t), 3) if c + t else None, "link_used": round((c + t) / seconds / link, 3)}
    finally:
        for p in reversed(procs):
            lib.stop(p)
        for name in os.listdir(out):
            os.remove(os.path.join(out, name))


def run(args, lib, opts):
    """Every TCP congestion control of --tools against chatcli's first; a
    fresh lab for each pair."""
    chatcli_cc = next(cc for kind, cc in args.tools if kind == "chatcli")
    source = os.path.join(args.work, "fairness.bin")
    with open(source, "wb") as f:
        f.truncate(int(args.rate_mbit * 125_000 * args.fairness * 1.5))
    results = []
    for kind, cc in args.tools:
        if kind != "tcp":
            continue
        lib.say(args, f"==> fairness: chatcli {chatcli_cc or 'default'} against TCP {cc}, {args.fairness} s: natlab up, serve")
        lib.start_lab(args, opts)
        results.append(one(args, lib, chatcli_cc, cc, source))
        lib.say(args, "    " + line(results[-1]))
        lib.natlab(args, "down", check=False)
    return results


def line(r):
    if "error" in r:
        return f"chatcli against TCP {r['tcp_cc']}: FAILED: {r['error']}"
    ok = r["share"] is not None and TARGET[0] <= r["share"] <= TARGET[1]
    return (f"chatcli {r['chatcli_cc']} against TCP {r['tcp_cc']}: chatcli's share {r['share']:.2f}"
            f" ({r['chatcli_mb_per_s']:.2f} against {r['tcp_mb_per_s']:.2f} MB/s over {r['seconds']:g} s),"
            f" link used {r['link_used']:.0%}: {'PASS' if ok else 'MISS'} (target 1/3-2/3)")


def describe(results):
    return [("Fairness: " if i == 0 else "          ") + line(r) for i, r in enumerate(results)]
