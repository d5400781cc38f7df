#!/usr/bin/env python3
"""`Tools/natlab matrix`: chat through every pair of NAT kinds and tabulate.

For each ordered pair (left kind, right kind) it brings up a lab with a chat
server and coturn ("natlab up" + "natlab serve"), runs the real chatcli
binary ("create --json" on left, "join" on right), sends --messages lines
each way, checks that each side received exactly the other's lines in
order, and that the path in the "connected" event is "relay" exactly when
no direct path exists. Time to connect: from starting "join" to its
"connected" event. Prints a markdown grid (rows: left, columns: right), or
one JSON object per pair with --json. Exit status 1 if any pair failed.
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import threading
import time

SERVER = "http://198.18.0.10:8080"
KINDS = ["none", "cone", "symmetric", "blocked"]
SIZES = [5, 100, 1199, 1200, 4096, 300, 16384, 2, 65536, 30000]


def expected_path(left, right, probing=False):
    """Relay exactly when no direct path exists (see the natlab header).
    With port probing, a symmetric NAT against a cone goes direct too."""
    if "blocked" in (left, right):
        return "relay"
    if probing and {left, right} == {"symmetric", "cone"}:
        return "direct"
    hard = {"symmetric", "cone"}
    if {left, right} <= hard and "symmetric" in (left, right):
        return "relay"
    return "direct"


def messages(tag, count):
    """`count` lines of mixed sizes (bytes, multi-byte characters included), each unique."""
    out = []
    for i in range(count):
        size = SIZES[i % len(SIZES)]
        head = f"{tag}{i}:"
        room = max(0, size - len(head.encode()))
        out.append(head + "é" * (room // 2) + "x" * (room % 2))
    return out


class Peer:
    """One chatcli process in a lab namespace, its stdout collected as timed lines."""

    def __init__(self, name, argv):
        self.name = name
        self.lines = []  # (monotonic time, line)
        self.cond = threading.Condition()
        self.eof = False
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
        self.stderr = []
        threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr), daemon=True).start()

    def _read(self, stream, into):
        for line in stream:
            with self.cond:
                into.append((time.monotonic(), line.rstrip("\n")) if into is self.lines else line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            if into is self.lines:
                self.eof = True
            self.cond.notify_all()

    def send(self, lines):
        def write():
            try:
                self.proc.stdin.write("".join(line + "\n" for line in lines))
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass
        threading.Thread(target=write, daemon=True).start()

    def events(self, name):
        out = []
        for when, line in self.lines:
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and obj.get("event") == name:
                out.append((when, obj))
        return out

    def wait(self, predicate, timeout):
        """The first truthy predicate() within `timeout` (or at end of output), else the last value."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                result = predicate()
                remaining = deadline - time.monotonic()
                if result or remaining <= 0 or self.eof:
                    return result
                self.cond.wait(min(0.2, remaining))

    def wait_event(self, name, timeout):
        found = self.wait(lambda: self.events(name), timeout)
        return found[0] if found else None

    def texts(self):
        return [obj.get("text") for _, obj in self.events("message")]

    def wait_messages(self, count, timeout):
        self.wait(lambda: len(self.texts()) >= count, timeout)
        return self.texts()

    def finish(self, timeout):
        try:
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def tail(self):
        def cut(line):
            return line if len(line) <= 200 else line[:200] + f"… ({len(line)} characters)"
        return "\n".join([f"--- {self.name} stdout"] + [cut(line) for _, line in self.lines if '"event":"message"' not in line][-10:] +
                         [f"--- {self.name} stderr"] + [cut(line) for line in self.stderr[-12:]])


def path_class(path):
    return "relay" if path == "relay" else "direct" if path in ("host", "srflx", "prflx") else None


def run_pair(args, left, right):
    exec_in = [args.natlab, "exec", "--prefix", args.prefix]
    client = ["--server", SERVER, "--json", "--no-store"] + (["--hard-nat-probing"] if args.hard_nat_probing else [])
    result = {"left": left, "right": right, "expected": expected_path(left, right, args.hard_nat_probing),
              "delay_ms": args.delay_ms, "loss_pct": args.loss_pct, "messages": args.messages,
              "path": None, "connect_s": None, "delivered": False, "ok": False, "error": None}
    creator = Peer("left", exec_in + ["left", "--", args.chatcli, "create"] + client)
    joiner = None
    try:
        code = creator.wait_event("code", 20)
        if code is None:
            result["error"] = "no code from create\n" + creator.tail()
            return result
        from_left, from_right = messages("L", args.messages), messages("R", args.messages)
        started = time.monotonic()
        joiner = Peer("right", exec_in + ["right", "--", args.chatcli, "join", code[1]["code"]] + client)
        creator.send(from_left)
        joiner.send(from_right)
        connected = joiner.wait_event("connected", args.connect_timeout)
        other = creator.wait_event("connected", 10) if connected else None
        if connected is None or other is None:
            result["error"] = "no connected event\n" + creator.tail() + "\n" + joiner.tail()
            return result
        result["connect_s"] = round(connected[0] - started, 3)
        result["path"] = connected[1].get("path")
        result["creator_path"] = other[1].get("path")
        timeout = args.message_timeout
        got_right = joiner.wait_messages(len(from_left), timeout)
        got_left = creator.wait_messages(len(from_right), timeout)
        result["delivered"] = got_right == from_left and got_left == from_right
        problems = []
        if not result["delivered"]:
            problems.append(f"delivery: right got {len(got_right)}/{len(from_left)} "
                            f"(in order: {got_right == from_left[:len(got_right)]}), left got {len(got_left)}/"
                            f"{len(from_right)} (in order: {got_left == from_right[:len(got_left)]})")
        # Each side names the type of the *remote* candidate (host/prflx on one
        # side of the same direct pair is normal); both must agree on relay.
        if {path_class(result["path"]), path_class(result["creator_path"])} != {result["expected"]}:
            problems.append(f"path: joiner {result['path']}, creator {result['creator_path']}, expected {result['expected']}")
        status = creator.finish(30)
        if status != 0:
            problems.append(f"create exited with {status}")
        if joiner.wait_event("peer_left", 20) is None:
            problems.append("join never saw peer_left")
        status = joiner.finish(20)
        if status != 0:
            problems.append(f"join exited with {status}")
        if problems:
            result["error"] = "; ".join(problems) + "\n" + creator.tail() + "\n" + joiner.tail()
        result["ok"] = not problems
        return result
    finally:
        for peer in (creator, joiner):
            if peer is not None and peer.proc.poll() is None:
                peer.proc.kill()
                peer.proc.wait()


def natlab(args, *argv):
    done = subprocess.run([args.natlab] + list(argv), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"natlab {' '.join(argv)} failed:\n{done.stderr}")


def cell(result):
    if not result["ok"]:
        return "**FAIL**"
    paths = result["path"] if result["path"] == result["creator_path"] else f"{result['creator_path']}/{result['path']}"
    return f"{paths} {result['connect_s']:.2f} s"


def print_grid(kinds, results):
    rights = [r for r in kinds if any(res["right"] == r for res in results)]
    print("| left \\ right | " + " | ".join(rights) + " |")
    print("|---" * (len(rights) + 1) + "|")
    for left in kinds:
        row = [next((cell(r) for r in results if r["left"] == left and r["right"] == right), "") for right in rights]
        if any(row):
            print(f"| **{left}** | " + " | ".join(row) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--natlab", required=True)
    parser.add_argument("--chatcli", default=None)
    parser.add_argument("--kinds", default=" ".join(KINDS))
    parser.add_argument("--pair", nargs=2, action="append", metavar=("LEFT", "RIGHT"),
                        help="run only these pairs (repeatable) instead of every pair of --kinds")
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--loss-pct", type=float, default=0)
    parser.add_argument("--messages", type=int, default=10)
    parser.add_argument("--connect-timeout", type=float, default=30)
    parser.add_argument("--message-timeout", type=float, default=60)
    parser.add_argument("--prefix", default="nlmatrix")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--hard-nat-probing", action="store_true",
                        help="run both peers with --hard-nat-probing (symmetric x cone is then expected direct)")
    parser.add_argument("--extended", action="store_true",
                        help="the named scenarios (natlab scenarios) and roaming instead (matrix_extended.py)")
    parser.add_argument("--runs", type=int, default=5, help="--extended: chats per scenario (time to connect: their median)")
    parser.add_argument("--only", nargs="*", help="--extended: only these scenarios (and no roaming)")
    parser.add_argument("--idle", type=float, default=0,
                        help="--extended: also leave a chat behind 30 s UDP timeouts idle this long (300: five minutes)")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(args.natlab)))
    args.chatcli = os.path.abspath(args.chatcli or os.environ.get("CHATCLI_BIN") or root + "/.build/debug/chatcli")
    if not os.access(args.chatcli, os.X_OK):
        sys.exit(f"natlab: matrix: no chatcli binary at '{args.chatcli}' (build it, or pass --chatcli PATH)")
    if args.extended:
        import matrix_extended
        matrix_extended.main(args)
    kinds = args.kinds.split()
    for kind in kinds + [k for pair in args.pair or [] for k in pair]:
        if kind not in KINDS:
            sys.exit(f"natlab: matrix: unknown NAT kind '{kind}' (expected one of: {' '.join(KINDS)})")
    pairs = [tuple(p) for p in args.pair] if args.pair else list(itertools.product(kinds, kinds))
    impair = ["--delay-ms", str(args.delay_ms), "--loss-pct", f"{args.loss_pct:g}"]
    results = []
    try:
        for left, right in pairs:
            natlab(args, "up", "--prefix", args.prefix, "--left", left, "--right", right, *impair)
            natlab(args, "serve", "--prefix", args.prefix, "--chatcli", args.chatcli)
            result = run_pair(args, left, right)
            results.append(result)
            if args.json:
                print(json.dumps(result), flush=True)
            elif not result["ok"]:
                print(f"natlab: {left} x {right}: {result['error']}", file=sys.stderr, flush=True)
    finally:
        subprocess.run([args.natlab, "down", "--prefix", args.prefix], capture_output=True)
    if not args.json:
        print_grid(KINDS, results)
    sys.exit(0 if all(r["ok"] for r in results) else 1)


if __name__ == "__main__":
    main()
