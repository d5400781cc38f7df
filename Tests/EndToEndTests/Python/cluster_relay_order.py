"""Relay order across two cluster instances, written from WireProtocol §1–§2.

Usage: python cluster_relay_order.py URL_A URL_B COUNT
Pairs a room through REST (created on A, accepted on B), seats one WebSocket
member on each instance, prints "sending", then sends COUNT relayed frames
`{"type":"chat_seq","n":i}` from A, 10 ms apart, while the test restarts
Redis. B must receive exactly 0..COUNT-1, in order, each once.
"""
import asyncio
import http.client
import json
import random
import sys
import urllib.parse

import websockets

A, B, COUNT = sys.argv[1], sys.argv[2], int(sys.argv[3])


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


async def until(ws, kind):
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if msg.get("type") == kind:
            return msg
        if msg.get("type") == "error":
            raise SystemExit(f"FAIL: error while waiting for {kind}: {msg}")


async def main():
    code = f"{random.randrange(10**6):06d}"
    s, _ = rest(A, "POST", "/api/rooms", {"joinid": code, "expiresInSeconds": 600, "client1": "order-alice-1"})
    assert s == 201, s
    s, body = rest(B, "POST", "/api/rooms/accept", {"joinid": code, "client2": "order-bob-22"})
    assert s == 200, (s, body)
    room = body["roomid"]
    async with websockets.connect(ws_url(A)) as wa, websockets.connect(ws_url(B)) as wb:
        await until(wa, "connected")
        await until(wb, "connected")
        await wa.send(json.dumps({"type": "join_room", "roomId": room}))
        await until(wa, "room_joined")
        await wb.send(json.dumps({"type": "join_room", "roomId": room}))
        await until(wa, "room_ready")
        await until(wb, "room_ready")
        print("sending", flush=True)
        received = []

        async def receive():
            while len(received) < COUNT:
                msg = json.loads(await asyncio.wait_for(wb.recv(), 60))
                if msg.get("type") == "chat_seq":
                    received.append(msg["n"])
                elif msg.get("type") == "error":
                    print(f"B got error {msg}", flush=True)

        async def send():
            for i in range(COUNT):
                await wa.send(json.dumps({"type": "chat_seq", "n": i}))
                await asyncio.sleep(0.01)

        await asyncio.gather(send(), receive())
        if received != list(range(COUNT)):
            missing = sorted(set(range(COUNT)) - set(received))
            print(f"FAIL: received {len(received)} frames, missing {missing[:20]}, first disorder at "
                  f"{next((i for i, n in enumerate(received) if n != i), None)}", flush=True)
            sys.exit(1)
        print(f"relay ok {COUNT}", flush=True)


asyncio.run(main())
