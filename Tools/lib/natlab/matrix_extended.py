#!/usr/bin/env python3
"""`Tools/natlab matrix --extended`: the named scenarios, and roaming.

For every scenario of `natlab scenarios` it brings up that lab with a chat
server and coturn, chats --runs times (lines both ways, exact delivery,
the path checked against the scenario's), and prints a markdown table: the
path each side reports, the family of the pair, and the time to connect
(starting "join" to its "connected" event; median, min and max of the
runs). Then roaming in a cone x cone lab: one side moves to another
interface ("natlab roam"), both at once, and one side's link flaps for 5 s
("natlab flap"); recovery is the time from the new address being up to the
peer printing a line typed right then, lines typed during the outage must
arrive exactly once. Exit status 1 if anything failed.
"""

import json
import statistics
import subprocess
import sys
import threading
import time

import matrix as m

SERVER6 = "http://[2001:db8::10]:8080"


def scenarios(natlab):
    out = subprocess.run([natlab, "scenarios", "--json"], capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def server_for(scenario, side):
    return SERVER6 if side == "left" and scenario in ("ipv6-only", "ipv6-to-ipv4") else m.SERVER


def family(event):
    """ipv6 or ipv4: the pair's remote address (the relayed one if relayed)."""
    local, remote = event.get("local", ""), event.get("remote", "")
    address = local if local.startswith("relay") else remote
    return "ipv6" if "[" in address else "ipv4"


def start_chat(args, prefix, scenario=None, messages=3):
    """create on left, join on right: (creator, joiner, connect seconds) once both are connected."""
    exec_in = [args.natlab, "exec", "--prefix", prefix]
    def client(side):
        return ["--server", server_for(scenario, side), "--json", "--no-store"]
    creator = m.Peer("left", exec_in + ["left", "--", args.chatcli, "create"] + client("left"))
    code = creator.wait_event("code", 20)
    if code is None:
        raise RuntimeError("no code from create\n" + creator.tail())
    started = time.monotonic()
    joiner = m.Peer("right", exec_in + ["right", "--", args.chatcli, "join", code[1]["code"]] + client("right"))
    connected = joiner.wait_event("connected", 30)
    other = creator.wait_event("connected", 10) if connected else None
    if connected is None or other is None:
        raise RuntimeError("no connected event\n" + creator.tail() + "\n" + joiner.tail())
    return creator, joiner, connected[0] - started, other[1], connected[1]


def finish(creator, joiner):
    creator.finish(20)
    joiner.finish(20)


def run_scenario(args, row):
    prefix = args.prefix
    m.natlab(args, "up", "--prefix", prefix, "--scenario", row["name"])
    m.natlab(args, "serve", "--prefix", prefix, "--chatcli", args.chatcli)
    result = {"scenario": row["name"], "expected": row["path"], "family_expected": row["family"],
              "reason": row["reason"], "connect_s": [], "paths": set(), "families": set(), "ok": True, "error": None}
    for run in range(args.runs):
        try:
            creator, joiner, seconds, creator_event, joiner_event = start_chat(args, prefix, row["name"])
        except RuntimeError as error:
            result.update(ok=False, error=str(error))
            return result
        from_left, from_right = m.messages(f"L{run}.", 3), m.messages(f"R{run}.", 3)
        creator.send(from_left)
        joiner.send(from_right)
        delivered = joiner.wait_messages(3, 20) == from_left and creator.wait_messages(3, 20) == from_right
        finish(creator, joiner)
        result["connect_s"].append(seconds)
        paths = (creator_event.get("path"), joiner_event.get("path"))
        result["paths"].add("/".join(paths) if paths[0] != paths[1] else paths[0])
        result["families"].add(family(joiner_event))
        relayed = "relay" in paths
        if not delivered or relayed != (row["path"] == "relay") or family(joiner_event) != row["family"]:
            result.update(ok=False, error=f"run {run}: paths {paths}, family {family(joiner_event)}, delivered {delivered}")
    return result


def roam_once(args, creator, joiner, movers, flap, tag):
    """Moves `movers` (or flaps the first for `flap` seconds) while both type; the recovery seconds."""
    during = {side: [f"{tag} {side} during {i}" for i in range(5)] for side in ("left", "right")}
    after = {side: f"{tag} {side} after" for side in ("left", "right")}
    peers = {"left": creator, "right": joiner}
    before = {side: len(peers[side].texts()) for side in peers}
    up = {}

    def move(side):
        command = ["flap", "--prefix", args.prefix, side, str(flap)] if flap else ["roam", "--prefix", args.prefix, side]
        out = subprocess.run([args.natlab] + command, capture_output=True, text=True, check=True).stdout
        up[side] = float(out.strip().splitlines()[-1])
        peers[side].send([after[side]])

    threads = [threading.Thread(target=move, args=(side,)) for side in movers]
    for thread in threads:
        thread.start()
    for side in peers:
        peers[side].send(during[side])
    for thread in threads:
        thread.join()
    recovery = []
    for side in movers:
        other = "right" if side == "left" else "left"
        seen = peers[other].wait(lambda: next((when for when, obj in peers[other].events("message")
                                               if obj.get("text") == after[side]), None), 30)
        recovery.append(seen - up[side] if seen else None)
    ok = True
    for side, other in (("left", "right"), ("right", "left")):
        want = during[side] + ([after[side]] if side in movers else [])
        got = peers[other].wait(lambda: len(peers[other].texts()) - before[other] >= len(want) and peers[other].texts(), 30)
        if not got or got[before[other]:] != want:
            ok = False
    return recovery, ok


def run_roaming(args):
    m.natlab(args, "up", "--prefix", args.prefix, "--left", "cone", "--right", "cone")
    m.natlab(args, "serve", "--prefix", args.prefix, "--chatcli", args.chatcli)
    creator, joiner, _, _, _ = start_chat(args, args.prefix)
    rows = []
    for name, movers, flap in (("left moves", ["left"], 0), ("both move at once", ["left", "right"], 0),
                               ("left's link down 5 s", ["left"], 5)):
        try:
            recovery, ok = roam_once(args, creator, joiner, movers, flap, name.split()[0] + str(len(rows)))
        except subprocess.CalledProcessError as error:
            recovery, ok = [None], False
            print(f"natlab: {name}: {error.stderr}", file=sys.stderr)
        rows.append({"case": name, "recovery_s": recovery, "ok": ok and None not in recovery})
    finish(creator, joiner)
    return rows


def run_idle(args):
    """A cone x cone chat behind NATs that forget idle UDP after 30 s, left idle
    --idle seconds: how long the next line takes each way, and whether the
    path changed meanwhile (a restart, a new pair, the peer seen away)."""
    m.natlab(args, "up", "--prefix", args.prefix, "--left", "cone", "--right", "cone", "--udp-timeout", "30")
    m.natlab(args, "serve", "--prefix", args.prefix, "--chatcli", args.chatcli)
    creator, joiner, _, _, _ = start_chat(args, args.prefix)
    creator.send(["before"])
    joiner.wait_messages(1, 20)
    printed = (len(creator.lines), len(joiner.lines))
    time.sleep(args.idle)   # the scenario itself is idleness
    delays = []
    for sender, receiver, text in ((creator, joiner, "after idle from left"), (joiner, creator, "after idle from right")):
        sent = time.monotonic()
        sender.send([text])
        seen = receiver.wait(lambda: next((when for when, obj in receiver.events("message") if obj.get("text") == text), None), 30)
        delays.append(seen - sent if seen else None)
    changes = [line for peer, since in ((creator, printed[0]), (joiner, printed[1])) for _, line in peer.lines[since:]
               if any(f'"event":"{e}"' in line for e in ("reconnected", "ice", "peer_away", "peer_back"))]
    finish(creator, joiner)
    return {"idle_s": args.idle, "udp_timeout_s": 30, "delivered_s": delays, "path_changes": len(changes),
            "ok": None not in delays and max(delays) < 1 and not changes}


def seconds(values):
    return "–" if not values else f"{statistics.median(values):.2f} s ({min(values):.2f}–{max(values):.2f})"


def main(args):
    results = []
    try:
        for row in scenarios(args.natlab):
            if args.only and row["name"] not in args.only:
                continue
            result = run_scenario(args, row)
            results.append(result)
            if args.json:
                print(json.dumps({**result, "paths": sorted(result["paths"]), "families": sorted(result["families"])}), flush=True)
            elif not result["ok"]:
                print(f"natlab: {row['name']}: {result['error']}", file=sys.stderr, flush=True)
        roaming = [] if args.only else run_roaming(args)
        idle = run_idle(args) if args.idle else None
    finally:
        subprocess.run([args.natlab, "down", "--prefix", args.prefix], capture_output=True)
    if args.json:
        for row in roaming:
            print(json.dumps(row))
    else:
        print(f"| scenario | expected | path (creator/joiner) | family | connect, median of {args.runs} (min–max) | why |")
        print("|---|---|---|---|---|---|")
        for r in results:
            mark = "" if r["ok"] else " **FAIL**"
            print(f"| {r['scenario']} | {r['expected']} {r['family_expected']} | {', '.join(sorted(r['paths']))}{mark} "
                  f"| {', '.join(sorted(r['families']))} | {seconds(r['connect_s'])} | {r['reason']} |")
        if roaming:
            print("\n| roaming (cone × cone) | recovery: new address up → line at the peer | exactly once |")
            print("|---|---|---|")
            for row in roaming:
                times = ", ".join("–" if t is None else f"{t:.2f} s" for t in row["recovery_s"])
                print(f"| {row['case']} | {times} | {'yes' if row['ok'] else '**no**'} |")
    if idle:
        if args.json:
            print(json.dumps(idle))
        else:
            times = " / ".join("–" if t is None else f"{t:.3f} s" for t in idle["delivered_s"])
            print(f"\nIdle {idle['idle_s']:g} s behind NATs that forget idle UDP after 30 s: the next line took {times} "
                  f"(left → right / right → left), {idle['path_changes']} path changes{'' if idle['ok'] else ' **FAIL**'}")
    ok = all(r["ok"] for r in results) and all(r["ok"] for r in roaming) and (idle is None or idle["ok"])
    sys.exit(0 if ok else 1)
