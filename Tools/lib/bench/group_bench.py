"""Group rooms as real processes on loopback (issue 31's performance part).

For each size (3, 5 and 8 members by default), in one run against one
`chatcli serve` on 127.0.0.1:

1. Joining. `create --group --max N`, then N-2 `join`s started together
   (the burst), then, once those N-1 are all connected to each other, the
   last `join`: the time from that last join's start until every member
   has printed a `connected` event for each of the other N-1 (each pair
   proven by the code: `"auth":"pake"`). The burst's own time (from its
   last join's start) is reported too.
2. Fan-out, idle: `--rounds` lines, one at a time, senders in turn. Each
   line carries its send time (CLOCK_MONOTONIC, this harness's); a
   receiver's delay is the time its `message` event is read from its
   stdout. Median and p99 over every (line, receiver) pair.
3. Fan-out while one member pipes a large text stream to the group (lines
   of 100 bytes, written as fast as it reads its stdin, at least
   `--stream-mb` and until the rounds are over; group file transfer does
   not exist yet, so this stands in for "while one member sends a file"):
   the same rounds, the other members in turn. The streaming member's
   delays are reported apart too (its event loop also reads the stream).
4. Fan-out while a file goes to the group: a new room of the same size,
   scripts that take every file (`--auto-accept`) and, last to join, a
   person at a terminal (a pty: `/send` is interactive) who sends a
   `--file-mb` file (random bytes) to everyone; the same rounds among the
   scripts while it goes (stopped when the first receiver has it all; the
   person's delay is when the line shows on its screen), then each copy's
   SHA-256 is checked.
5. Per member process: CPU (utime+stime, /proc/PID/stat) for joining, the
   idle rounds and the stream, and peak RSS (VmHWM, /proc/PID/status)
   before and after the stream.

With `--baseline BIN`, each size is measured with that binary too, right
after. Prints one JSON line per group size (and binary), then (without
--json) a table.
"""
import argparse
import json
import fcntl
import os
import pty
import re
import selectors
import shutil
import struct
import termios
import socket
import statistics
import subprocess
import threading
import time

from group_report import print_table
from report import free_port, sha256, write_payload

STREAM_LINE = 100  # bytes per streamed line, newline included
BENCH_ON_SCREEN = re.compile(rb": bench (\d+) ")


def machine_ticks():
    """Busy and total jiffies of the whole machine (the first line of /proc/stat)."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    return sum(values) - values[3] - values[4], sum(values)


def busy_percent(before, after):
    return round(100 * (after[0] - before[0]) / max(1, after[1] - before[1]))


def proc_cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))


class Member:
    """One chatcli process; its stdout lines are read by the Pump."""

    def __init__(self, argv, env, work, terminal=False):
        self.name = argv[argv.index("--as") + 1]
        self.stderr_path = os.path.join(work, f"{self.name}-{os.getpid()}-{time.monotonic_ns()}.err")
        self.terminal = None
        if terminal:
            # A person at a terminal (`/send` is interactive): the chat on a pty.
            master, slave = pty.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            self.started = time.monotonic()
            self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
            os.close(slave)
            self.terminal = os.fdopen(master, "r+b", buffering=0)
        else:
            with open(self.stderr_path, "wb") as err:
                self.started = time.monotonic()
                self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env)
        self.buffer = b""
        self.connected = set()      # member ids with a proven `connected`
        self.unproven = []          # `connected` events whose auth was not pake
        self.mesh_at = None         # when `connected` reached the size asked for
        self.mesh_size = 0
        self.code = None
        self.received = {}          # round id -> receive time
        self.stream_bytes = 0       # streamed text received (newline not counted)
        self.errors = []
        self.eof = False
        self.offers = 0             # files offered to it, and finished
        self.transfers_done = 0
        self.done_at = None

    @property
    def output(self):
        return self.terminal if self.terminal else self.proc.stdout

    def type(self, text):
        if self.terminal:
            self.terminal.write(text.replace("\n", "\r").encode())
        else:
            self.proc.stdin.write(text.encode())
            self.proc.stdin.flush()


class Pump:
    """Reads every member's stdout in one thread (no per-process threads
    fighting over the GIL), stamping each chunk with the time it was read."""

    def __init__(self):
        self.sel = selectors.DefaultSelector()
        self.cond = threading.Condition()
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def add(self, member):
        os.set_blocking(member.output.fileno(), False)
        self.sel.register(member.output, selectors.EVENT_READ, member)

    def run(self):
        while not self.stop:
            # epoll may be added to while it waits (the kernel allows it);
            # only this thread unregisters.
            try:
                ready = self.sel.select(timeout=0.05)
            except (ValueError, OSError):
                ready = []
            if not ready:
                continue
            now = time.monotonic()
            with self.cond:
                for key, _ in ready:
                    member = key.data
                    try:
                        chunk = os.read(key.fd, 1 << 16)
                    except BlockingIOError:
                        continue
                    except OSError:   # EIO: a pty whose process ended
                        chunk = b""
                    if not chunk:
                        member.eof = True
                        self.sel.unregister(key.fileobj)
                        continue
                    self.feed(member, member.buffer + chunk, now)
                self.cond.notify_all()

    @staticmethod
    def feed(member, data, now):
        *lines, member.buffer = data.split(b"\n")
        if member.terminal:
            # A person's screen: "name: bench N T" as the chat prints it (a redraw may repeat it).
            for line in lines:
                for match in BENCH_ON_SCREEN.finditer(line):
                    member.received.setdefault(int(match.group(1)), now)
            return
        for line in lines:
            if line.startswith(b'{"event":"message"'):
                # Streamed lines are counted, not parsed: 2 MB to each member.
                marker = line.find(b'"text":"')
                text = line[marker + 8:] if marker >= 0 else b""
                if text.startswith(b"bench "):
                    member.received[int(text.split(b" ")[1])] = now
                else:
                    member.stream_bytes += max(0, len(text) - 2)  # less the closing quote and brace
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            kind = event.get("event")
            if kind == "code":
                member.code = event["code"]
            elif kind == "connected" and "member" in event:
                if event.get("auth") == "pake":
                    member.connected.add(event["member"])
                else:
                    member.unproven.append(event)
                if member.mesh_size and member.mesh_at is None and len(member.connected) >= member.mesh_size:
                    member.mesh_at = now
            elif kind == "offer":
                member.offers += 1
            elif kind == "transfer_done":
                member.transfers_done += 1
                member.done_at = now
            elif kind == "error":
                member.errors.append(event.get("message", event.get("error")))

    def wait(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def expect_mesh(pump, members, size, timeout):
    with pump.cond:
        for m in members:
            m.mesh_size = size - 1
            if m.mesh_at is None and len(m.connected) >= size - 1:
                m.mesh_at = time.monotonic()
    return pump.wait(lambda: all(m.mesh_at is not None for m in members), timeout)


def fan_out(pump, members, senders, rounds, first_id, gap, timeout=10, until=None):
    """`rounds` stamped lines, senders in turn, each waited for by every
    other member; (receiver, delay in seconds) of each, and the rounds that
    never arrived."""
    delays, lost = [], 0
    for r in range(rounds):
        if until and until():
            break
        rid = first_id + r
        sender = senders[r % len(senders)]
        receivers = [m for m in members if m is not sender]
        sent = time.monotonic()
        sender.type(f"bench {rid} {sent:.6f}\n")
        if not pump.wait(lambda: all(rid in m.received for m in receivers), timeout):
            lost += 1
            continue
        with pump.cond:
            delays += [(m, m.received[rid] - sent) for m in receivers]
        time.sleep(gap)   # pacing, not synchronisation: a line every `gap` s, as people type
    return delays, lost


def summary(delays):
    if not delays:
        return {"n": 0}
    ms = [d * 1000 for d in delays]
    return {"n": len(ms), "median_ms": round(statistics.median(ms), 2), "p99_ms": round(percentile(ms, 99), 2),
            "max_ms": round(max(ms), 2)}


def streamer(member, total, rounds_done, done):
    """Writes 100-byte lines to `member`'s stdin until at least `total`
    bytes are written and the rounds are over (so every round of the
    phase runs while the stream is being sent)."""
    block = ("x" * (STREAM_LINE - 1) + "\n").encode() * 64
    written = 0
    try:
        while written < total or not rounds_done.is_set():
            member.proc.stdin.write(block)
            member.proc.stdin.flush()
            written += len(block)
    except (BrokenPipeError, ValueError):
        pass
    done["bytes"] = written
    done["at"] = time.monotonic()


def run_group(args, binary, server, env, size, first_id):
    pump = Pump()
    base = [binary]
    common = ["--server", server, "--json", "--no-store"]
    members = []
    row = {"members": size, "loadavg_before": open("/proc/loadavg").read().split()[:3]}
    try:
        creator = Member(base + ["create", "--group", "--max", str(size), "--as", "m1"] + common, env, args.work)
        members.append(creator)
        pump.add(creator)
        if not pump.wait(lambda: creator.code is not None or creator.eof, 30) or creator.code is None:
            raise SystemExit(f"bench: no code from create --group: {open(creator.stderr_path).read()[-500:]}")

        def join(i):
            m = Member(base + ["join", creator.code, "--as", f"m{i + 1}"] + common, env, args.work)
            members.append(m)
            pump.add(m)
            return m

        burst = [join(i) for i in range(1, size - 1)]
        ok = expect_mesh(pump, members, size - 1, args.timeout)
        row["burst_joins"] = len(burst)
        row["burst_connect_s"] = round(max(m.mesh_at for m in members) - burst[-1].started, 3) if ok else None
        if not ok:
            raise SystemExit(f"bench: {size - 1} members did not all connect within {args.timeout} s: "
                             + "; ".join(f"{m.name} {len(m.connected)}" for m in members))
        cpu0 = [proc_cpu(m.proc.pid) for m in members]
        last = join(size - 1)
        ok = expect_mesh(pump, members, size, args.timeout)
        if not ok:
            raise SystemExit(f"bench: {size} members did not all connect within {args.timeout} s: "
                             + "; ".join(f"{m.name} {len(m.connected)}" for m in members))
        row["connect_s"] = round(max(m.mesh_at for m in members) - last.started, 3)
        row["newcomer_s"] = round(last.mesh_at - last.started, 3)
        row["unproven_connections"] = sum(len(m.unproven) for m in members)
        cpu_join = [proc_cpu(m.proc.pid) for m in members]
        row["join_cpu_ms_last"] = round(1000 * (cpu_join[-1]), 1)
        row["join_cpu_ms_others"] = round(1000 * statistics.mean(b - a for a, b in zip(cpu0, cpu_join)), 1)

        ticks = machine_ticks()
        delays, lost = fan_out(pump, members, members, args.rounds, first_id, args.gap)
        row["idle"] = {**summary([d for _, d in delays]), "lost_rounds": lost, "machine_busy_percent": busy_percent(ticks, machine_ticks())}
        cpu_idle = [proc_cpu(m.proc.pid) for m in members]
        row["idle_cpu_ms_per_line"] = round(1000 * sum(b - a for a, b in zip(cpu_join, cpu_idle)) / max(1, args.rounds), 2)
        hwm = [proc_kib(m.proc.pid, "VmHWM") for m in members]
        row["rss_kib"] = [proc_kib(m.proc.pid, "VmRSS") for m in members]
        row["hwm_kib"] = hwm

        streaming = members[-1]
        done, rounds_done = {}, threading.Event()
        total = args.stream_mb * 1_000_000
        writer = threading.Thread(target=streamer, args=(streaming, total, rounds_done, done), daemon=True)
        stream_start = time.monotonic()
        ticks = machine_ticks()
        writer.start()
        delays, lost = fan_out(pump, members, members[:-1], args.rounds, first_id + args.rounds, args.gap)
        rounds_done.set()
        rounds_end = time.monotonic()
        busy = busy_percent(ticks, machine_ticks())
        # The streaming member apart too: its event loop also reads the stream.
        row["stream"] = {**summary([d for _, d in delays]), "lost_rounds": lost, "machine_busy_percent": busy,
                         "to_streaming_member": summary([d for m, d in delays if m is streaming]),
                         "to_the_others": summary([d for m, d in delays if m is not streaming])}
        writer.join(args.timeout + 60)
        receivers = members[:-1]
        expected = done.get("bytes", 0) // STREAM_LINE * (STREAM_LINE - 1)
        pump.wait(lambda: all(m.stream_bytes >= expected for m in receivers), args.timeout + 60)
        end = time.monotonic()
        cpu_stream = [proc_cpu(m.proc.pid) for m in members]
        got = min(m.stream_bytes for m in receivers)
        row["stream"].update(bytes_per_receiver=got, expected=expected, seconds=round(end - stream_start, 2),
                             rounds_s=round(rounds_end - stream_start, 2),
                             mb_per_s_per_receiver=round(got / 1e6 / (end - stream_start), 2),
                             cpu_s_sender=round(cpu_stream[-1] - cpu_idle[-1], 2),
                             cpu_s_receiver_mean=round(statistics.mean(b - a for a, b in zip(cpu_idle[:-1], cpu_stream[:-1])), 2))
        row["hwm_after_stream_kib"] = [proc_kib(m.proc.pid, "VmHWM") for m in members]
        row["cpu_s"] = [round(c, 2) for c in cpu_stream]
        row["errors"] = [e for m in members for e in m.errors]
        row["verified"] = (row["unproven_connections"] == 0 and row["idle"]["lost_rounds"] == 0
                           and row["stream"]["lost_rounds"] == 0 and got >= expected)
        return row
    finally:
        stop(pump, members)


def stop(pump, members):
    """Ends every member as a person or script would (`/quit`, end of
    input), then the ones still there after 20 s by SIGKILL."""
    for m in members:
        try:
            if m.terminal:
                m.type("/quit\n")
            else:
                m.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
    deadline = time.monotonic() + 20
    for m in members:
        try:
            m.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            m.proc.kill()
            m.proc.wait()
    pump.stop = True
    pump.thread.join(2)
    for m in members:
        if m.terminal:
            m.terminal.close()


def run_file(args, binary, server, env, size, first_id, payload, digest):
    """A new room of `size`: scripts that take every file (`--auto-accept`)
    and, last to join, a person at a terminal who types `/send PATH` once
    everyone is connected. Fan-out rounds among the scripts while the file
    goes to each of them (stopped when the first has it all)."""
    pump = Pump()
    common = ["--server", server, "--no-store"]
    members, inboxes = [], []
    row = {"members": size, "file_bytes": os.path.getsize(payload)}

    def script(argv, name):
        inbox = os.path.join(args.inbox_dir or args.work, f"in-{name}-{size}-{os.getpid()}")
        os.makedirs(inbox, exist_ok=True)
        inboxes.append(inbox)
        m = Member([binary] + argv + ["--as", name, "--json", "--auto-accept", inbox] + common, env, args.work)
        members.append(m)
        pump.add(m)
        return m

    try:
        creator = script(["create", "--group", "--max", str(size)], "f1")
        if not pump.wait(lambda: creator.code is not None or creator.eof, 30) or creator.code is None:
            raise SystemExit(f"bench: no code from create --group: {open(creator.stderr_path).read()[-500:]}")
        scripts = [creator] + [script(["join", creator.code], f"f{i + 1}") for i in range(1, size - 1)]
        person_env = dict(env, TERM="screen", LANG="C.UTF-8", NO_COLOR="1")
        person = Member([binary, "join", creator.code, "--as", f"f{size}"] + common, person_env, args.work, terminal=True)
        members.append(person)
        pump.add(person)
        if not expect_mesh(pump, scripts, size, args.timeout):
            raise SystemExit(f"bench: the file room of {size} did not connect within {args.timeout} s: "
                             + "; ".join(f"{m.name} {len(m.connected)}" for m in scripts))
        cpu0 = [proc_cpu(m.proc.pid) for m in members]
        start = time.monotonic()
        person.type(f"/send {payload}\n")
        if not pump.wait(lambda: all(m.offers for m in scripts), args.timeout):
            raise SystemExit(f"bench: the offer of {payload} did not reach every member within {args.timeout} s")
        delays, lost = fan_out(pump, members, scripts, args.rounds, first_id, args.gap,
                               until=lambda: any(m.transfers_done for m in scripts))
        rounds = len(delays) // max(1, size - 1) + lost
        pump.wait(lambda: all(m.transfers_done for m in scripts), args.timeout + 300)
        cpu1 = [proc_cpu(m.proc.pid) for m in members]
        received = [os.path.join(inbox, os.path.basename(payload)) for inbox in inboxes]
        ok = all(os.path.exists(f) and sha256(f) == digest for f in received)
        seconds = max((m.done_at or time.monotonic()) for m in scripts) - start
        row.update(summary([d for _, d in delays]), lost_rounds=lost, rounds_during_transfer=rounds,
                   to_the_sender=summary([d for m, d in delays if m is person]),
                   to_the_others=summary([d for m, d in delays if m is not person]),
                   seconds=round(seconds, 2), mb_per_s_per_receiver=round(row["file_bytes"] / 1e6 / seconds, 1),
                   cpu_s_sender=round(cpu1[-1] - cpu0[-1], 2),
                   cpu_s_receiver_mean=round(statistics.mean(b - a for a, b in zip(cpu0[:-1], cpu1[:-1])), 2),
                   verified=ok and lost == 0 and all(m.transfers_done for m in scripts),
                   errors=[e for m in members for e in m.errors])
        return row
    finally:
        stop(pump, members)
        for inbox in inboxes:
            shutil.rmtree(inbox, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chatcli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--members", default="3,5,8")
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--gap", type=float, default=0.02, help="seconds between a round's last receipt and the next line")
    ap.add_argument("--stream-mb", type=int, default=2)
    ap.add_argument("--inbox-dir", help="where the receivers write the file (default: --work; /dev/shm takes the disk out)")
    ap.add_argument("--file-mb", type=int, default=128, help="the file a person at a terminal sends to the group (MiB; 0: none)")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--baseline", help="another chatcli binary (an older build) measured in the same run, interleaved")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.members.split(",")]
    if any(not 3 <= s <= 8 for s in sizes):
        raise SystemExit("bench: --members takes group sizes from 3 to 8, e.g. 3,5,8")

    port, stun = free_port(), free_port(socket.SOCK_DGRAM)
    server_proc = subprocess.Popen([args.chatcli, "serve", "--host", "127.0.0.1", "--port", str(port), "--stun-port", str(stun),
                                    "--db", os.path.join(args.work, "rooms.db")], stderr=subprocess.DEVNULL)
    server = f"http://127.0.0.1:{port}"
    env = dict(os.environ, CHATCLI_PORT_MAPPING="off", HOME=args.work)
    rows = []
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server_proc.poll() is not None:
                    raise SystemExit(f"bench: chatcli serve did not listen on 127.0.0.1:{port}")
                time.sleep(0.05)
        payload = os.path.join(args.work, "payload.bin")
        digest = write_payload(payload, args.file_mb) if args.file_mb else None
        tools = [("chatcli", args.chatcli)] + ([("baseline", args.baseline)] if args.baseline else [])
        for n, size in enumerate(sizes):
            for k, (tool, binary) in enumerate(tools):   # interleaved: load on the machine hits both alike
                server_cpu = proc_cpu(server_proc.pid)
                harness_cpu = time.process_time()
                row = run_group(args, binary, server, env, size, 100_000 * (len(tools) * n + k + 1))
                # This harness reads every member's stdout on the same CPUs.
                row["harness_cpu_s"] = round(time.process_time() - harness_cpu, 2)
                row["server_cpu_s"] = round(proc_cpu(server_proc.pid) - server_cpu, 2)
                if args.file_mb and tool == "chatcli":   # a baseline may predate group files
                    row["file"] = run_file(args, binary, server, env, size, 100_000 * (len(tools) * n + k + 1) + 50_000,
                                           payload, digest)
                row.update(tool=tool, rounds=args.rounds, stream_mb=args.stream_mb, cpus=os.cpu_count())
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        server_proc.kill()
        server_proc.wait()
    if not args.json:
        print_table(rows, args)


main()
