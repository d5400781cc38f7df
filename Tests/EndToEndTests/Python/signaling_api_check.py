"""An independent client for WireProtocol §1–§2, written only from the spec.

Usage: python signaling_api_check.py http://127.0.0.1:PORT STUN_PORT
Exercises every REST route and the signaling WebSocket, including bad input,
and checks after each bad request that the server still serves. Prints one
line per check and exits non-zero on the first failure.
"""
import asyncio
import http.client
import json
import socket
import sys
import time
import urllib.parse

import websockets

BASE = sys.argv[1]
STUN_PORT = int(sys.argv[2])
URL = urllib.parse.urlparse(BASE)
HOST, PORT = URL.hostname, URL.port
WS_URL = f"ws://{HOST}:{PORT}/ws"
checks = 0


def ok(cond, what):
    global checks
    if not cond:
        print(f"FAIL: {what}", flush=True)
        sys.exit(1)
    checks += 1
    print(f"ok: {what}", flush=True)


def request(method, path, body=None, raw=None, headers=None):
    conn = http.client.HTTPConnection(HOST, PORT, timeout=40)
    hdrs = {"Content-Type": "application/json"}
    hdrs.update(headers or {})
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    conn.request(method, path, body=data, headers=hdrs)
    resp = conn.getresponse()
    payload = resp.read()
    conn.close()
    parsed = None
    if payload:
        try:
            parsed = json.loads(payload)
        except ValueError:
            parsed = payload
    return resp.status, parsed, resp


def still_serving(after):
    status, body, _ = request("GET", "/healthz")
    ok(status == 200 and body == {"ok": True}, f"server still serving after {after}")


def expect_error(method, path, body, status, code, raw=None):
    s, b, r = request(method, path, body, raw=raw)
    ok(s == status and isinstance(b, dict) and b.get("error") == code, f"{method} {path} {body if raw is None else raw[:40]!r} -> {status} {code} (got {s} {b})")
    ok(r.getheader("Content-Type", "").startswith("application/json"), "error body is JSON")
    still_serving(f"{code}")
    return r


def rest_checks():
    s, b, _ = request("GET", "/healthz")
    ok(s == 200 and b == {"ok": True}, "GET /healthz")

    s, b, _ = request("GET", "/api/ice-servers", headers={"Host": f"{HOST}:{PORT}"})
    urls = [u for e in b["iceServers"] for u in e["urls"]]
    ok(s == 200 and f"stun:{HOST}:{STUN_PORT}" in urls, f"ice-servers names the STUN port ({urls})")

    code, c1, c2 = "482913", "creator-device-0001", "joiner-device-0002"
    s, b, _ = request("POST", "/api/rooms", {"joinid": code, "expiresInSeconds": 300, "client1": c1})
    ok(s == 201 and b.get("ok") is True and b.get("exp", "").endswith("Z"), f"create room -> 201 ({b})")
    expect_error("POST", "/api/rooms", {"joinid": code, "expiresInSeconds": 300, "client1": "other-device-1"}, 409, "joinid_in_use")

    bad_creates = [
        ({"expiresInSeconds": 300, "client1": c1}, "missing_joinid"),
        ({"joinid": None, "expiresInSeconds": 300, "client1": c1}, "missing_joinid"),
        ({"joinid": "", "expiresInSeconds": 300, "client1": c1}, "missing_joinid"),
        ({"joinid": 123456, "expiresInSeconds": 300, "client1": c1}, "invalid_joinid"),
        ({"joinid": "12345", "expiresInSeconds": 300, "client1": c1}, "invalid_joinid"),
        ({"joinid": "12a456", "expiresInSeconds": 300, "client1": c1}, "invalid_joinid"),
        ({"joinid": "١٢٣٤٥٦", "expiresInSeconds": 300, "client1": c1}, "invalid_joinid"),
        ({"joinid": "111111", "client1": c1}, "missing_expiresInSeconds"),
        ({"joinid": "111111", "expiresInSeconds": 59, "client1": c1}, "invalid_expiresInSeconds"),
        ({"joinid": "111111", "expiresInSeconds": 86401, "client1": c1}, "invalid_expiresInSeconds"),
        ({"joinid": "111111", "expiresInSeconds": 300.5, "client1": c1}, "invalid_expiresInSeconds"),
        ({"joinid": "111111", "expiresInSeconds": "300", "client1": c1}, "invalid_expiresInSeconds"),
        ({"joinid": "111111", "expiresInSeconds": 300}, "missing_client1"),
        ({"joinid": "111111", "expiresInSeconds": 300, "client1": "short"}, "invalid_client1"),
        ({"joinid": "111111", "expiresInSeconds": 300, "client1": "has space in it"}, "invalid_client1"),
        ({"joinid": "111111", "expiresInSeconds": 300, "client1": "x" * 129}, "invalid_client1"),
    ]
    for body, err in bad_creates:
        expect_error("POST", "/api/rooms", body, 400, err)
    expect_error("POST", "/api/rooms", None, 400, "invalid_json", raw=b"[1,2,3]")
    expect_error("POST", "/api/rooms", None, 400, "invalid_json", raw=b"{not json")
    expect_error("POST", "/api/rooms", None, 400, "invalid_json", raw=b"\xff\xfe")
    expect_error("POST", "/api/rooms", None, 413, "body_too_large", raw=b"{" + b" " * 70000 + b"}")
    expect_error("GET", "/api/nothing-here", None, 404, "not_found")
    r = expect_error("PUT", "/api/rooms", {}, 405, "method_not_allowed")
    ok("POST" in (r.getheader("Allow") or ""), "405 carries Allow")

    s, b, _ = request("POST", "/api/rooms/check", {"joinid": code, "client1": c1})
    ok(s == 204, "check pending -> 204")
    expect_error("POST", "/api/rooms/check", {"joinid": code, "client1": "not-the-creator"}, 404, "not_found_or_expired")

    t0 = time.time()
    s, b, _ = request("POST", "/api/rooms/check?wait=2", {"joinid": code, "client1": c1})
    took = time.time() - t0
    ok(s == 204 and 1.5 <= took <= 5, f"long poll on a pending room holds ~2 s then 204 (took {took:.1f}s)")

    # A long poll is answered as soon as the room is accepted.
    import threading
    result = {}

    def poll():
        t = time.time()
        result["resp"] = request("POST", "/api/rooms/check?wait=25", {"joinid": code, "client1": c1})
        result["took"] = time.time() - t

    th = threading.Thread(target=poll)
    th.start()
    time.sleep(0.5)
    s, b, _ = request("POST", "/api/rooms/accept", {"joinid": code, "client2": c2})
    ok(s == 200 and len(b["roomid"]) == 48 and all(ch in "0123456789abcdef" for ch in b["roomid"]), "accept -> 200 roomid (48 hex)")
    room = b["roomid"]
    th.join(30)
    ps, pb, _ = result["resp"]
    ok(ps == 200 and pb == {"roomid": room} and result["took"] < 5, f"long poll woken by accept ({result['took']:.1f}s)")
    expect_error("POST", "/api/rooms/accept", {"joinid": code, "client2": "third-device-03"}, 409, "already_accepted")
    s, b, _ = request("POST", "/api/rooms/check", {"joinid": code, "client1": c1})
    ok(s == 200 and b == {"roomid": room}, "check keeps answering 200 roomid")
    expect_error("POST", "/api/rooms", {"joinid": code, "expiresInSeconds": 300, "client1": "other-device-1"}, 409, "joinid_in_use")

    s, b, _ = request("GET", f"/api/rooms?roomid={room}")
    ok(s == 200 and b == {"roomid": room, "client1": c1, "client2": c2}, "GET room")
    expect_error("GET", "/api/rooms", None, 400, "missing_roomid")
    expect_error("GET", "/api/rooms?roomid=" + "0" * 48, None, 404, "not_found")
    expect_error("POST", "/api/rooms/accept", {"joinid": "000000", "client2": c2}, 404, "not_found_or_expired")
    expect_error("POST", "/api/user/purge", {"deviceIds": []}, 400, "invalid_deviceIds")
    expect_error("POST", "/api/user/purge", {}, 400, "invalid_deviceIds")
    expect_error("POST", "/api/user/purge", {"deviceIds": ["bad id!"]}, 400, "invalid_deviceIds")
    return code, c1, c2, room


def raw_garbage_checks():
    for junk in [b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"\x00\x01\x02\x03" * 100, b"POST /api/rooms HTTP/1.1\r\nContent-Length: 10\r\n\r\n{"]:
        s = socket.create_connection((HOST, PORT), timeout=5)
        s.sendall(junk)
        s.shutdown(socket.SHUT_WR)
        try:
            s.recv(4096)
        except OSError:
            pass
        s.close()
        still_serving(f"raw bytes {junk[:20]!r}")


async def recv_json(ws, timeout=5):
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def ws_checks(room):
    a = await websockets.connect(WS_URL, max_size=None)
    hello = await recv_json(a)
    ok(hello["type"] == "connected" and hello.get("clientId"), "WebSocket connected with clientId")
    await a.send(json.dumps({"type": "join_room", "roomId": "f" * 48}))
    m = await recv_json(a)
    ok(m == {"type": "error", "error": "room_not_found"}, f"join of a room that is not accepted -> room_not_found ({m})")
    await a.send(json.dumps({"type": "webrtc_offer", "sdp": "v=0"}))
    m = await recv_json(a)
    ok(m == {"type": "error", "error": "not_in_room"}, "relay outside a room -> not_in_room")
    await a.send(json.dumps({"type": "leave_room"}))
    m = await recv_json(a)
    ok(m["type"] == "left_room" and m["roomId"] is None, "leave_room outside a room -> left_room null")
    await a.send("{broken")
    m = await recv_json(a)
    ok(m["type"] == "error", f"malformed JSON -> error ({m})")
    await a.send(json.dumps({"type": "no_such_type"}))
    m = await recv_json(a)
    ok(m["type"] == "error", f"unknown type -> error ({m})")
    await a.send(json.dumps({"type": "ping"}))
    m = await recv_json(a)
    ok(m == {"type": "pong"}, "JSON ping -> pong")
    pong = await a.ping(b"hb")
    await asyncio.wait_for(pong, 5)
    ok(True, "WebSocket ping -> pong")

    await a.send(json.dumps({"type": "join_room", "roomId": room}))
    m = await recv_json(a)
    ok(m == {"type": "room_joined", "roomId": room, "userCount": 1, "isInitiator": True, "ready": False}, f"first member joins ({m})")
    await a.send(json.dumps({"type": "webrtc_offer", "sdp": "v=0"}))
    m = await recv_json(a)
    ok(m == {"type": "error", "error": "no_peer"}, "relay while alone -> no_peer")

    b = await websockets.connect(WS_URL)
    hb = await recv_json(b)
    await b.send(json.dumps({"type": "join_room", "roomId": room}))
    m = await recv_json(b)
    ok(m == {"type": "room_joined", "roomId": room, "userCount": 2, "isInitiator": False, "ready": True}, f"second member joins ({m})")
    ra, rb = await recv_json(a), await recv_json(b)
    ok(ra == {"type": "room_ready", "roomId": room, "userCount": 2, "isInitiator": True}, "initiator gets room_ready")
    ok(rb == {"type": "room_ready", "roomId": room, "userCount": 2, "isInitiator": False}, "joiner gets room_ready")

    c = await websockets.connect(WS_URL)
    await recv_json(c)
    await c.send(json.dumps({"type": "join_room", "roomId": room}))
    m = await recv_json(c)
    ok(m["type"] == "room_full", "third member -> room_full")
    await c.close()

    cand = {"candidate": "candidate:1 1 udp 2130706431 10.0.0.1 5000 typ host", "sdpMLineIndex": 0, "sdpMid": "0"}
    await a.send(json.dumps({"type": "ice_candidate", "candidate": cand}))
    m = await recv_json(b)
    ok(m == {"type": "ice_candidate", "candidate": cand, "from": hello["clientId"], "roomId": room}, f"candidate relayed with from and roomId ({m})")
    await b.send(json.dumps({"type": "webrtc_answer", "sdp": "v=0 answer", "extra": [1, 2]}))
    m = await recv_json(a)
    ok(m["type"] == "webrtc_answer" and m["sdp"] == "v=0 answer" and m["from"] == hb["clientId"] and m["extra"] == [1, 2], "answer relayed unchanged")
    await a.send(json.dumps({"type": "chat_typing", "on": True}))
    m = await recv_json(b)
    ok(m["type"] == "chat_typing" and m["on"] is True, "chat_* relayed")

    try:
        await a.send(json.dumps({"type": "webrtc_offer", "sdp": "x" * 70000}))
        m = await recv_json(a)
        ok(m["type"] == "error", f"text frame over 64 KiB -> error, connection usable ({m.get('error')})")
        await a.send(json.dumps({"type": "ping"}))
        ok((await recv_json(a)) == {"type": "pong"}, "connection still usable after oversized frame")
    except websockets.ConnectionClosed as e:
        ok(e.rcvd is not None and e.rcvd.code == 1009, "oversized frame closed with 1009")
        a = await websockets.connect(WS_URL)
        await recv_json(a)
        await a.send(json.dumps({"type": "join_room", "roomId": room}))
        await recv_json(a)

    # The first member drops; the other hears peer_disconnected; the seat (and the initiator role) comes back.
    await a.close()
    m = await recv_json(b)
    ok(m["type"] == "peer_disconnected" and m.get("roomId") == room, f"peer_disconnected on socket close ({m})")
    a = await websockets.connect(WS_URL)
    await recv_json(a)
    await a.send(json.dumps({"type": "join_room", "roomId": room}))
    m = await recv_json(a)
    ok(m["type"] == "room_joined" and m["isInitiator"] is True and m["userCount"] == 2, f"returning member takes its old seat ({m})")
    ra, rb = await recv_json(a), await recv_json(b)
    ok(ra["type"] == "room_ready" and ra["isInitiator"] is True and rb["isInitiator"] is False, "roles kept after a reconnect")

    await b.send(json.dumps({"type": "leave_room"}))
    m = await recv_json(b)
    ok(m == {"type": "left_room", "roomId": room}, "leave_room -> left_room")
    m = await recv_json(a)
    ok(m == {"type": "peer_left", "roomId": room}, "other member gets peer_left")
    await a.close()
    await b.close()


def purge_and_rate_limit_checks(room, c1, c2):
    s, b, _ = request("POST", "/api/rooms", {"joinid": "700700", "expiresInSeconds": 600, "client1": "pending-device-1"})
    ok(s == 201, "second room created")
    s, b, _ = request("POST", "/api/user/purge", {"deviceIds": [c1, "pending-device-1"]})
    ok(s == 200 and b == {"success": True, "deviceIdCount": 2, "roomsDeleted": 1, "pendingsDeleted": 1}, f"purge counts ({b})")
    expect_error("GET", f"/api/rooms?roomid={room}", None, 404, "not_found")

    s, b, _ = request("POST", "/api/rooms", {"joinid": "808080", "expiresInSeconds": 600, "client1": "rate-limit-owner"})
    # One miss happened earlier (code 000000); nine more reach the limit of 10 a minute.
    for i in range(9):
        s, _, _ = request("POST", "/api/rooms/accept", {"joinid": f"{900000 + i}", "client2": "guesser-device"})
        ok(s == 404, f"miss {i + 2} -> 404")
    s, b, r = request("POST", "/api/rooms/accept", {"joinid": "900100", "client2": "guesser-device"})
    ok(s == 429 and b == {"error": "rate_limited"} and int(r.getheader("Retry-After")) > 0, "11th miss -> 429 with Retry-After")
    s, b, r = request("POST", "/api/rooms/accept", {"joinid": "808080", "client2": "guesser-device"})
    ok(s == 429, "a real code is also 429 once limited")
    s, b, _ = request("POST", "/api/rooms/check", {"joinid": "808080", "client1": "rate-limit-owner"})
    ok(s == 204, "limited address can still check its own room")

    s, b, _ = request("POST", "/api/rooms", {"joinid": "606060", "expiresInSeconds": 600, "client1": "delete-owner-1"})
    s, b, _ = request("DELETE", "/api/rooms", {"roomid": "1" * 48})
    ok(s == 404 and b == {"error": "not_found"}, "DELETE unknown room -> 404")


def main():
    code, c1, c2, room = rest_checks()
    raw_garbage_checks()
    asyncio.run(ws_checks(room))
    purge_and_rate_limit_checks(room, c1, c2)
    still_serving("everything")
    print(f"{checks} checks passed", flush=True)


main()
