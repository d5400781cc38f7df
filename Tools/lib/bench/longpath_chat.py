"""`Tools/bench longpath`'s chat runs (issue 28, item 4): is a chat still
instant while a file fills the path? In a fresh lab per --chat-loss setting,
a script (`chatcli create --json --auto-accept`) on the right and a person
at a terminal (`chatcli join`, on a pty: `/send` is interactive) on the
left. The person sends a --chat-mb file with `/send`; once it flows, both
sides type a line every 250 ms until it has arrived: the person's lines
are timed from the keystrokes written to the pty to the script's `message`
event, the script's from its stdin to the line on the person's screen.
Each line carries its number, so a line lost or shown twice shows too.
Target: median and p99 at most the one-way delay + 50 ms, both ways.
"""
import fcntl
import json
import os
import pty
import re
import selectors
import struct
import subprocess
import termios
import threading
import time

GAP = 0.25
ON_SCREEN = re.compile(rb"chatbench R(\d+)")


class Reader:
    """Every chunk of one process's output, stamped when read, fed to `on_line` line by line."""

    def __init__(self, stream, on_line):
        self.stream, self.on_line, self.eof = stream, on_line, False
        os.set_blocking(stream.fileno(), False)
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        sel = selectors.DefaultSelector()
        sel.register(self.stream, selectors.EVENT_READ)
        buffer = b""
        while True:
            if not sel.select(timeout=0.5):
                continue
            try:
                chunk = os.read(self.stream.fileno(), 1 << 16)
            except BlockingIOError:
                continue
            except OSError:   # EIO: the pty's process ended
                chunk = b""
            now = time.monotonic()
            if not chunk:
                self.eof = True
                return
            *lines, buffer = (buffer + chunk).replace(b"\r", b"\n").split(b"\n")
            for line in lines:
                self.on_line(line, now)
            # A prompt redraw may hold a shown line without a newline yet.
            if ON_SCREEN.search(buffer):
                self.on_line(buffer, now)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else None


def one(args, lib, loss, source):
    """One chat with a transfer at `loss` % in the lab that is up; the two directions' delays."""
    out = os.path.join(args.work, f"chat-{loss:g}")
    os.makedirs(out, exist_ok=True)
    state = {"code": None, "connected": False, "offer": False, "done": False, "errors": []}
    sent_lr, got_lr, sent_rl, got_rl = {}, {}, {}, {}
    cond = threading.Condition()
    procs = []
    seen = {"script": [], "screen": []}   # the last lines of each, for a failure's message

    def script_line(line, now):
        seen["script"] = (seen["script"] + [line.decode(errors="replace")])[-5:]
        try:
            event = json.loads(line)
        except ValueError:
            return
        kind = event.get("event")
        with cond:
            if kind == "code":
                state["code"] = event["code"]
            elif kind == "connected":
                state["connected"] = True
            elif kind == "offer":
                state["offer"] = now
            elif kind == "transfer_done":
                state["done"] = now
            elif kind in ("error", "transfer_failed"):
                state["errors"].append(event.get("message") or event.get("reason") or kind)
            elif kind == "message" and str(event.get("text", "")).startswith("chatbench L"):
                got_lr.setdefault(int(event["text"].split("L")[1]), now)
            cond.notify_all()

    def screen_line(line, now):
        seen["screen"] = (seen["screen"] + [line.decode(errors="replace")])[-5:]
        with cond:
            for match in ON_SCREEN.finditer(line):
                got_rl.setdefault(int(match.group(1)), now)
            if b"connected" in line.lower():
                state["screen_connected"] = True
            cond.notify_all()

    def wait(predicate, timeout):
        with cond:
            return cond.wait_for(predicate, timeout)

    try:
        script = lib.in_host(args, "right", lib.chatcli_command(args, None, "create", "--json", "--no-store", "--auto-accept", out,
                                                                "--server", lib.SERVER),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        procs.append(script)
        Reader(script.stdout, script_line)
        if not wait(lambda: state["code"], 30):
            return {"loss_pct": loss, "error": "the script printed no code"}
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
        env = dict(os.environ, TERM="xterm", LANG="C.UTF-8", NO_COLOR="1")
        person = lib.in_host(args, "left", lib.chatcli_command(args, None, "join", state["code"], "--no-store", "--server", lib.SERVER),
                             stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        procs.append(person)
        os.close(slave)
        terminal = os.fdopen(master, "r+b", buffering=0)
        Reader(terminal, screen_line)
        if not wait(lambda: state["connected"] and state.get("screen_connected"), 60):
            return {"loss_pct": loss, "error": f"the chat did not connect within 60 s (script: {seen['script']}; screen: {seen['screen']})"}
        terminal.write(f"/send {source}\r".encode())
        if not wait(lambda: state["offer"] or state["errors"], 30) or state["errors"]:
            return {"loss_pct": loss, "error": f"the file was not offered: {state['errors']}"}
        time.sleep(1)   # past the transfer's start: the path is full
        started, deadline, n = time.monotonic(), time.monotonic() + args.timeout * 4, 0
        while time.monotonic() < deadline and not state["done"] and not state["errors"]:
            n += 1
            sent_lr[n] = time.monotonic()
            terminal.write(f"chatbench L{n}\r".encode())
            sent_rl[n] = time.monotonic()
            script.stdin.write(f"chatbench R{n}\n".encode())
            script.stdin.flush()
            time.sleep(GAP)
        seconds = time.monotonic() - started
        wait(lambda: len(got_lr) >= n and len(got_rl) >= n, 5)   # the last lines' way
        size = os.path.getsize(source)

        def direction(sent, got):
            delays = [1000 * (got[i] - sent[i]) for i in sent if i in got]
            return {"lines": len(sent), "arrived": len(delays),
                    "median_ms": round(percentile(delays, 50), 1) if delays else None,
                    "p99_ms": round(percentile(delays, 99), 1) if delays else None,
                    "max_ms": round(max(delays), 1) if delays else None}
        done = bool(state["done"])
        return {"loss_pct": loss, "file_mb": round(size / 1e6), "file_done": done, "chat_seconds": round(seconds, 1),
                "file_mb_per_s": round(size / (state["done"] - state["offer"]) / 1e6, 2) if done else None,
                "errors": state["errors"], "left_to_right": direction(sent_lr, got_lr), "right_to_left": direction(sent_rl, got_rl)}
    finally:
        for p in reversed(procs):
            lib.stop(p)
        for name in os.listdir(out):
            path = os.path.join(out, name)
            if os.path.isfile(path):
                os.remove(path)


def run(args, lib):
    """A fresh lab for each --chat-loss setting, the --chat-mb file sent through it."""
    source = os.path.join(args.work, "chat-transfer.bin")
    with open(source, "wb") as f:
        f.truncate(args.chat_mb << 20)
    results = []
    for loss in args.chat_loss:
        lib.say(args, f"==> chat during a {args.chat_mb} MiB /send (delay {args.delay_ms} ms, loss {loss:g} %): natlab up, serve")
        lib.start_lab(args, lib.lab_options(args, loss))
        results.append(one(args, lib, loss, source))
        lib.say(args, "    " + line(args, results[-1]))
        lib.natlab(args, "down", check=False)
    os.remove(source)
    return results


def line(args, r):
    if "error" in r:
        return f"chat at {r['loss_pct']:g} % loss: FAILED: {r['error']}"
    bound = args.delay_ms + 50
    parts = []
    ok = r["file_done"] and not r["errors"]
    for name, d in (("left->right (with the file)", r["left_to_right"]), ("right->left", r["right_to_left"])):
        if d["median_ms"] is None:
            parts.append(f"{name}: nothing arrived")
            ok = False
            continue
        ok = ok and d["arrived"] == d["lines"] and d["median_ms"] <= bound and d["p99_ms"] <= bound
        parts.append(f"{name} median {d['median_ms']:.0f} ms, p99 {d['p99_ms']:.0f}, max {d['max_ms']:.0f}"
                     f" ({d['arrived']} of {d['lines']} lines)")
    rate = f"the file at {r['file_mb_per_s']:.2f} MB/s" if r["file_done"] else "the file did not finish"
    return (f"chat at {r['loss_pct']:g} % loss, {rate}: " + "; ".join(parts) +
            f": {'PASS' if ok else 'MISS'} (target: median and p99 <= {bound} ms, every line)")


def describe(args, results):
    return [("Chat during a transfer: " if i == 0 else "                        ") + line(args, r) for i, r in enumerate(results)]
