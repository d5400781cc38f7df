"""Frame order and seats across cluster faults, written from WireProtocol §1–§2.

Usage: python cluster_faults.py order URL_A URL_B
       python cluster_faults.py outage URL_A URL_B

order: a member on A sends join_room, ping and a malformed frame back to
back, then leave_room and ping: it must get room_joined, pong, the error,
left_room, pong, in that order (the pongs and the error are made by A
itself, the others come back through Redis).

outage: Alice seated through A, Bob through B, neither WebSocket closes.
Steps wait for a line on stdin from the test, which meanwhile stops Redis
and instance A (see ClusterTests):
  prints "seated"   -> waits "stopped":  Alice and Bob each send one relay
  prints "queued"   -> waits "rejoin":   Bob sends join_room again (a client
                                          that reconnected would), which frees
                                          Alice's seat (A is away)
  prints "rejoined" -> waits "resume":   A is back; both must hear room_ready,
                                          get the other's relay, then relay
                                          both ways again, with no error frame
  prints "relay ok"
"""
import asyncio
import http.client
import json
import random
import sys
import urllib.parse

import websockets

MODE, A, B = sys.argv[1], sys.argv[2], sys.argv[3]


def rest(base, method, path, body):
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request(method, path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, json.loads(data) if data else None


def ws_url(base):
    u = urllib.parse.urlparse(base)
    return f"ws://{u.hostname}:{u.port}/ws"


def room():
    code = f"{random.randrange(10**6):06d}"
    s, _ = rest(A, "POST", "/api/rooms", {"joinid": code, "expiresInSeconds": 600, "client1": "faults-alice-1"})
    assert s == 201, s
    s, body = rest(B, "POST", "/api/rooms/accept", {"joinid": code, "client2": "faults-bob-22"})
    assert s == 200, (s, body)
    return body["roomid"]


async def recv(ws, timeout=60):
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def until(ws, kind):
    while True:
        msg = await recv(ws)
        if msg.get("type") == kind:
            return msg
        if msg.get("type") == "error":
            raise SystemExit(f"FAIL: error while waiting for {kind}: {msg}")


async def line():
    return (await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)).strip()


async def expect_line(word):
    got = await line()
    if got != word:
        raise SystemExit(f"FAIL: expected {word!r} on stdin, got {got!r}")


async def order():
    rid = room()
    async with websockets.connect(ws_url(A)) as wa:
        await until(wa, "connected")
        await wa.send(json.dumps({"type": "join_room", "roomId": rid}))
        await wa.send(json.dumps({"type": "ping"}))
        await wa.send("{not json")
        await wa.send(json.dumps({"type": "leave_room"}))
        await wa.send(json.dumps({"type": "ping"}))
        got = []
        for _ in range(5):
            msg = await recv(wa)
            got.append(msg["type"] if msg["type"] != "error" else "error " + msg.get("code", msg.get("error", "")))
        want = ["room_joined", "pong", "error invalid_json", "left_room", "pong"]
        if got != want:
            raise SystemExit(f"FAIL: frames {got}, want {want}")
        print("order ok", flush=True)


async def collect(ws, want_types, want_chat):
    """Reads until every type in want_types and the chat frame numbered want_chat came; no errors."""
    seen, chats = set(), []
    while not (want_types <= seen and want_chat in chats):
        msg = await recv(ws)
        kind = msg.get("type")
        if kind == "error":
            raise SystemExit(f"FAIL: error frame {msg}")
        if kind == "chat_seq":
            chats.append(msg["n"])
        else:
            seen.add(kind)
    return chats


async def outage():
    rid = room()
    async with websockets.connect(ws_url(A), ping_interval=None) as wa, \
            websockets.connect(ws_url(B), ping_interval=None) as wb:
        await until(wa, "connected")
        await until(wb, "connected")
        await wa.send(json.dumps({"type": "join_room", "roomId": rid}))
        await until(wa, "room_joined")
        await wb.send(json.dumps({"type": "join_room", "roomId": rid}))
        await until(wa, "room_ready")
        await until(wb, "room_ready")
        print("seated", flush=True)
        await expect_line("stopped")
        await wa.send(json.dumps({"type": "chat_seq", "n": 0}))
        await wb.send(json.dumps({"type": "chat_seq", "n": 100}))
        print("queued", flush=True)
        await expect_line("rejoin")
        await wb.send(json.dumps({"type": "join_room", "roomId": rid}))
        joined = await until(wb, "room_joined")
        if joined.get("userCount") != 1:
            raise SystemExit(f"FAIL: Alice's seat was not freed: {joined}")
        print("rejoined", flush=True)
        await expect_line("resume")
        alice, bob = await asyncio.gather(collect(wa, {"room_ready"}, 100), collect(wb, {"room_ready"}, 0))
        await wa.send(json.dumps({"type": "chat_seq", "n": 1}))
        await wb.send(json.dumps({"type": "chat_seq", "n": 101}))
        alice += await collect(wa, set(), 101)
        bob += await collect(wb, set(), 1)
        if alice != [100, 101] or bob != [0, 1]:
            raise SystemExit(f"FAIL: Alice got {alice}, Bob got {bob}")
        if wa.close_code is not None or wb.close_code is not None:
            raise SystemExit(f"FAIL: a WebSocket closed: {wa.close_code} {wb.close_code}")
        print("relay ok", flush=True)


asyncio.run(order() if MODE == "order" else outage())
