"""Redis operations per pairing and per relayed message, for `Tools/bench cluster`.

Counts with Redis's `INFO commandstats` before and after each phase, run
against instances that serve nothing else (heartbeats, the relay secret's
SET NX and GET with each, and idle XREAD timeouts, a few per second, are
included):

- pairing: POST /api/rooms on the first instance, its creator's
  `check?wait` held there, POST /api/rooms/accept on the last instance, the
  poll answered: the REST side of one pairing, one at a time;
- seating: both members' `join_room` (first and last instance), until both
  hear `room_ready` (each member leaves the previous room it sat in);
- relay: one relayed frame from the first instance's member to the last's,
  the next sent only when the previous arrived (Redis idle: no batching);
- burst: the same frames sent back to back (the inbox read batches).

Commands run from inside the Lua scripts are counted by Redis too; both
"calls" (what instances send: EVALSHA, XREAD, …) and "total" (every command
Redis ran) are reported per operation.

Usage: python cluster_ops.py --redis-port P --url http://127.0.0.1:A --url http://127.0.0.1:B [--pairings N] [--relays N]
"""

import argparse
import asyncio
import http.client
import json
import random
import subprocess
import sys
import threading
import urllib.parse

from websockets.asyncio.client import connect

# What instances send while serving (the rest is run by their scripts).
CLIENT_COMMANDS = {"evalsha", "xread"}


def commandstats(port):
    out = subprocess.run(["redis-cli", "-p", str(port), "info", "commandstats"], capture_output=True, text=True).stdout
    stats = {}
    for line in out.splitlines():
        if line.startswith("cmdstat_"):
            name, rest = line[len("cmdstat_"):].split(":", 1)
            fields = dict(kv.split("=") for kv in rest.split(","))
            stats[name] = int(fields["calls"])
    return stats


def delta(before, after):
    """Calls per command between two snapshots, without this script's own INFO."""
    return {k: after.get(k, 0) - before.get(k, 0) for k in after
            if after.get(k, 0) != before.get(k, 0) and k != "info"}


def per(d, n, outside_scripts):
    """Per-operation figures: calls the instances made, and every command Redis ran."""
    calls = sum(v for k, v in d.items() if k in outside_scripts)
    total = sum(d.values())
    return {"calls": round(calls / n, 2), "total": round(total / n, 2),
            "by_command": {k: round(v / n, 2) for k, v in sorted(d.items())}}


def rest(base, method, path, body):
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request(method, path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, json.loads(data) if data else None


def healthz_polls(base):
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", "/healthz")
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp.getheader("X-Long-Polls")


def pair(first, last, i):
    """One pairing; returns the roomid."""
    code = f"{random.randrange(10**6):06d}"
    creator, joiner = f"ops-creator-{i:06d}", f"ops-joiner-{i:06d}"
    status, _ = rest(first, "POST", "/api/rooms", {"joinid": code, "expiresInSeconds": 600, "client1": creator})
    if status == 409:
        return pair(first, last, i)
    assert status == 201, status
    answer = {}
    poll = threading.Thread(target=lambda: answer.update(r=rest(first, "POST", "/api/rooms/check?wait=30",
                                                                  {"joinid": code, "client1": creator})))
    poll.start()
    while healthz_polls(first) != "1":
        pass
    status, body = rest(last, "POST", "/api/rooms/accept", {"joinid": code, "client2": joiner})
    assert status == 200, (status, body)
    poll.join()
    assert answer["r"][0] == 200 and answer["r"][1]["roomid"] == body["roomid"], answer
    return body["roomid"]


def ws_url(base):
    u = urllib.parse.urlparse(base)
    return f"ws://{u.hostname}:{u.port}/ws"


async def until(ws, kind):
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
        if msg.get("type") == kind:
            return msg
        if msg.get("type") == "error":
            raise SystemExit(f"error frame while waiting for {kind}: {msg}")


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--redis-port", type=int, required=True)
    p.add_argument("--url", action="append", required=True)
    p.add_argument("--pairings", type=int, default=200)
    p.add_argument("--relays", type=int, default=2000)
    a = p.parse_args()
    first, last = a.url[0], a.url[-1]
    port = a.redis_port
    result = {"instances": len(a.url), "pairings": a.pairings, "relays": a.relays}

    before = commandstats(port)
    rooms = [pair(first, last, i) for i in range(a.pairings)]
    d = delta(before, commandstats(port))
    d.pop("ping", None)   # the benchmark's own /healthz polls, not the pairing
    d.pop("config|resetstat", None)
    result["pairing"] = per(d, a.pairings, CLIENT_COMMANDS)
    print(f"    {a.pairings} pairings: {result['pairing']['calls']} calls, {result['pairing']['total']} commands each",
          file=sys.stderr)

    async with connect(ws_url(first), ping_interval=None) as wa, connect(ws_url(last), ping_interval=None) as wb:
        await until(wa, "connected")
        await until(wb, "connected")
        before = commandstats(port)
        seatings = min(20, len(rooms))
        for room in rooms[:seatings]:
            await wa.send(json.dumps({"type": "join_room", "roomId": room}))
            await until(wa, "room_joined")
            await wb.send(json.dumps({"type": "join_room", "roomId": room}))
            await until(wa, "room_ready")
            await until(wb, "room_ready")
        result["seating"] = per(delta(before, commandstats(port)), seatings, CLIENT_COMMANDS)

        before = commandstats(port)
        for i in range(a.relays):
            await wa.send(json.dumps({"type": "chat_bench", "n": i}))
            msg = await until(wb, "chat_bench")
            assert msg["n"] == i, msg
        result["relay"] = per(delta(before, commandstats(port)), a.relays, CLIENT_COMMANDS)

        before = commandstats(port)
        for i in range(a.relays):
            await wa.send(json.dumps({"type": "chat_bench", "n": i}))
        for i in range(a.relays):
            msg = await until(wb, "chat_bench")
            assert msg["n"] == i, msg
        result["burst"] = per(delta(before, commandstats(port)), a.relays, CLIENT_COMMANDS)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
