"""An aiortc WebRTC peer speaking the Inviso signaling protocol (WireProtocol §1–§3).

Usage: python aiortc_peer.py SERVER_URL create|join [CODE] --send FILE --expect N [--code DIGITS]
  create: makes a room (with --code, under those digits) and prints {"event":"code","code":...}; join: accepts CODE.
  Sends each string in FILE (a JSON list) on the data channel "chat", prints
  {"event":"message","text":...} for each message received, and once it has
  sent everything and received N messages, leaves and exits 0.
  --ignore-max-message-size: send messages over the a=max-message-size the
  other side advertised, as a hostile peer would (aiortc refuses otherwise).
  ERROR chunks the other side's SCTP sends are printed as
  {"event":"sctp_error","cause":N,"info":...}.
  --relay udp|tcp|tls: relay only (iceTransportPolicy "relay"), through the one
  TURN URL of that transport the server's /api/ice-servers gives; once the
  channel opens, prints {"event":"selected","local":TYPE,"turn":TRANSPORT,...}
  saying how the nominated pair's local candidate reaches its relay.
  An https:// server is reached over TLS (wss:// for signaling), verified
  against the system's CAs or SSL_CERT_FILE.
"""
import argparse
import asyncio
import json
import random
import secrets
import ssl
import sys
import urllib.parse

import websockets
from aiortc import RTCConfiguration, RTCIceServer, RTCIceTransportPolicy, RTCPeerConnection, RTCSessionDescription
from aiortc import rtcsctptransport
from aiortc.sdp import candidate_from_sdp

from sctp_drain import acknowledged


def emit(obj):
    print(json.dumps(obj), flush=True)


def report_sctp_errors():
    """aiortc ignores ERROR chunks once established; print their causes."""
    original = rtcsctptransport.RTCSctpTransport._receive_chunk

    async def receive_chunk(self, chunk):
        if isinstance(chunk, rtcsctptransport.ErrorChunk):
            for cause, value in chunk.params:
                emit({"event": "sctp_error", "cause": cause, "info": value.rstrip(b"\x00").decode("utf8", "replace")})
        return await original(self, chunk)

    rtcsctptransport.RTCSctpTransport._receive_chunk = receive_chunk


async def rest(base, path, body, method="POST"):
    loop = asyncio.get_running_loop()

    def call():
        import http.client
        u = urllib.parse.urlparse(base)
        if u.scheme == "https":
            conn = http.client.HTTPSConnection(u.hostname, u.port, timeout=10, context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
        if body is None:
            conn.request(method, path)
        else:
            conn.request(method, path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        return r.status, (json.loads(data) if data else None)

    return await loop.run_in_executor(None, call)


async def relay_configuration(server, transport):
    """The server's TURN entry cut down to its one URL of `transport`, relay only."""
    status, body = await rest(server, "/api/ice-servers", None, method="GET")
    turn = next((e for e in (body or {}).get("iceServers", []) if e.get("username")), None)
    if status != 200 or turn is None:
        emit({"event": "error", "error": f"ice-servers {status} {body}"})
        sys.exit(1)
    wanted = {"udp": ("turn:", "?transport=udp"), "tcp": ("turn:", "?transport=tcp"), "tls": ("turns:", "?transport=tcp")}[transport]
    urls = [u for u in turn["urls"] if u.startswith(wanted[0]) and u.endswith(wanted[1])]
    if not urls:
        emit({"event": "error", "error": f"no {transport} TURN URL in {turn['urls']}"})
        sys.exit(1)
    server = RTCIceServer(urls=urls[:1], username=turn["username"], credential=turn["credential"])
    return RTCConfiguration(iceServers=[server], iceTransportPolicy=RTCIceTransportPolicy.RELAY)


def selected_path(pc):
    """How the nominated pair's local candidate reaches the network. aiortc
    has no API for the selected pair: this reads aioice's state, and the TURN
    client's own connection to its server (UDP, TCP, or TCP with TLS)."""
    from aioice.turn import TurnClientTcpProtocol
    connection = pc.sctp.transport.transport.iceGatherer._connection
    pair = connection._nominated.get(1)
    if pair is None:
        return {"event": "selected", "local": None}
    found = {"event": "selected", "local": pair.local_candidate.type}
    inner = getattr(pair.protocol.transport, "_TurnTransport__inner_protocol", None)
    if inner is not None:
        tls = inner.transport.get_extra_info("ssl_object")
        found["turn"] = ("tls" if tls else "tcp") if isinstance(inner, TurnClientTcpProtocol) else "udp"
        found["server"] = "%s:%d" % inner.transport.get_extra_info("peername")[:2]
        found["tls_version"] = tls.version() if tls else None
    return found


async def main():
    report_sctp_errors()
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("mode")
    ap.add_argument("code", nargs="?")
    ap.add_argument("--ignore-max-message-size", action="store_true")
    ap.add_argument("--send", required=True)
    ap.add_argument("--expect", type=int, required=True)
    ap.add_argument("--code", help="create: these six digits instead of random ones (a forger that learned them)")
    ap.add_argument("--relay", choices=["udp", "tcp", "tls"], help="relay only, through the server's TURN over this transport")
    args = ap.parse_args()
    outgoing = json.load(open(args.send))
    device = "aiortc-" + secrets.token_hex(8)

    if args.mode == "create":
        while True:
            code = args.code or "%06d" % random.randrange(1000000)
            status, _ = await rest(args.server, "/api/rooms", {"joinid": code, "expiresInSeconds": 600, "client1": device})
            if status == 201:
                break
        emit({"event": "code", "code": code})
        while True:
            status, body = await rest(args.server, "/api/rooms/check", {"joinid": code, "client1": device})
            if status == 200:
                room = body["roomid"]
                break
            await asyncio.sleep(0.3)
    else:
        status, body = await rest(args.server, "/api/rooms/accept", {"joinid": args.code, "client2": device})
        if status != 200:
            emit({"event": "error", "error": f"accept {status} {body}"})
            sys.exit(1)
        room = body["roomid"]

    u = urllib.parse.urlparse(args.server)
    ws = await websockets.connect(f"{'wss' if u.scheme == 'https' else 'ws'}://{u.hostname}:{u.port}/", max_size=None)
    pc = RTCPeerConnection(await relay_configuration(args.server, args.relay) if args.relay else None)
    received = []
    done = asyncio.Event()
    channel_holder = {}
    pending_candidates = []

    def check_done():
        ch = channel_holder.get("ch")
        if ch and channel_holder.get("sent") and len(received) >= args.expect:
            done.set()

    def attach(ch):
        channel_holder["ch"] = ch

        @ch.on("message")
        def on_message(msg):
            text = msg if isinstance(msg, str) else msg.decode()
            received.append(text)
            emit({"event": "message", "text": text})
            check_done()

        async def send_all():
            if args.ignore_max_message_size:
                ch.transport._remote_max_message_size = 0   # 0: no limit, in aiortc
            for text in outgoing:
                ch.send(text)
                while ch.bufferedAmount > 1 << 20:
                    await asyncio.sleep(0.01)
            while ch.bufferedAmount > 0:
                await asyncio.sleep(0.01)
            channel_holder["sent"] = True
            emit({"event": "sent", "count": len(outgoing)})
            check_done()

        def opened():
            emit({"event": "open"})
            if args.relay:
                emit(selected_path(pc))
            asyncio.ensure_future(send_all())

        if ch.readyState == "open":
            opened()
        else:
            ch.on("open", opened)

    @pc.on("datachannel")
    def on_datachannel(ch):
        # Only "chat" carries messages; extras such as chatcli's "ctl" are
        # ignored, as WireProtocol §3 allows a peer to do.
        if ch.label == "chat":
            attach(ch)

    async def add_candidate(c):
        text = c.get("candidate") if isinstance(c, dict) else c
        if not text:
            return
        if text.startswith("a="):
            text = text[2:]
        if text.startswith("candidate:"):
            text = text[len("candidate:"):]
        cand = candidate_from_sdp(text)
        cand.sdpMid = c.get("sdpMid", "0") if isinstance(c, dict) else "0"
        cand.sdpMLineIndex = 0
        await pc.addIceCandidate(cand)

    await ws.send(json.dumps({"type": "join_room", "roomId": room}))
    async for raw in ws:
        msg = json.loads(raw)
        t = msg.get("type")
        if t == "room_ready" and msg.get("isInitiator"):
            attach(pc.createDataChannel("chat"))
            await pc.setLocalDescription(await pc.createOffer())
            await ws.send(json.dumps({"type": "webrtc_offer", "sdp": pc.localDescription.sdp}))
        elif t == "webrtc_offer":
            await pc.setRemoteDescription(RTCSessionDescription(sdp=msg["sdp"], type="offer"))
            for c in pending_candidates:
                await add_candidate(c)
            pending_candidates.clear()
            await pc.setLocalDescription(await pc.createAnswer())
            await ws.send(json.dumps({"type": "webrtc_answer", "sdp": pc.localDescription.sdp}))
        elif t == "webrtc_answer":
            await pc.setRemoteDescription(RTCSessionDescription(sdp=msg["sdp"], type="answer"))
            for c in pending_candidates:
                await add_candidate(c)
            pending_candidates.clear()
        elif t == "ice_candidate":
            if pc.remoteDescription is None:
                pending_candidates.append(msg["candidate"])
            else:
                await add_candidate(msg["candidate"])
        elif t in ("peer_left", "peer_disconnected"):
            emit({"event": t})
            break
        if done.is_set():
            break
        if t in ("room_ready", "webrtc_offer", "webrtc_answer") and "watch" not in channel_holder:
            channel_holder["watch"] = asyncio.ensure_future(watch_done(done, ws, pc))

    await acknowledged(pc)
    await leave(ws)
    await pc.close()
    emit({"event": "closed", "received": len(received)})


async def leave(ws):
    """leave_room, then close: the peer must see peer_left, not peer_disconnected."""
    try:
        await ws.send(json.dumps({"type": "leave_room"}))
        await ws.close()
    except Exception:  # noqa: BLE001 - already closed by the other path
        pass


async def watch_done(done, ws, pc):
    await done.wait()
    # aiortc's bufferedAmount reaching 0 means handed to SCTP, not acknowledged:
    # the last (largest) message must be acknowledged before leaving; and the
    # peer must get our SACK of its last messages (aiortc delays SACKs), which
    # is how chatcli counts them delivered to a peer without `ctl` acks.
    await acknowledged(pc)
    await asyncio.sleep(2)
    await leave(ws)


asyncio.run(main())
