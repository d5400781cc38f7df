"""An independent file-transfer peer, written from FileTransfer.md alone, on aiortc.

Usage:
  python aiortc_files.py SERVER_URL receive CODE --out DIR
      joins the room of `chatcli send`, accepts the offer, writes DIR/NAME,
      checks each file's SHA-256 and prints {"event":"received","name":...,"sha256":...}.
  python aiortc_files.py SERVER_URL send --file PATH [--hostile KIND]
      creates a room (prints {"event":"code",...}) for `chatcli receive CODE`
      and offers PATH; with --hostile it lies instead (traversal, absurd,
      overflow, endless) and prints {"event":"aborted","reason":...} when the
      receiver stops it.
"""
import argparse
import asyncio
import hashlib
import json
import os
import random
import secrets
import struct
import sys
import urllib.parse

import websockets
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.sdp import candidate_from_sdp

from sctp_drain import acknowledged

OFFER, ACCEPT, DECLINE, ENTRY, RESUME, START, DATA, END, RESULT, DONE, COMPLETE, ABORT = range(1, 13)
CHUNK = 65535


def emit(obj):
    print(json.dumps(obj), flush=True)


def string(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b


def read_string(b, at):
    (n,) = struct.unpack_from(">H", b, at)
    return b[at + 2:at + 2 + n].decode(), at + 2 + n


def offer(name, total, files, folders, is_folder):
    return bytes([OFFER, 1]) + struct.pack(">QIIB", total, files, folders, is_folder) + string(name)


def entry(kind, mode, size, path):
    return bytes([ENTRY]) + struct.pack(">BHQ", kind, mode, size) + string(path)


async def rest(base, path, body):
    def call():
        import http.client
        u = urllib.parse.urlparse(base)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
        conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        return r.status, (json.loads(data) if data else None)
    return await asyncio.get_running_loop().run_in_executor(None, call)


class Receiver:
    """Receives one offer into `out`, verifying every file."""

    def __init__(self, ch, out, finished):
        self.ch, self.out, self.finished = ch, out, finished
        self.file = None
        self.hash = None
        ch.on("message", self.on_message)

    def on_message(self, m):
        kind = m[0]
        if kind == OFFER:
            total, files, folders, is_folder = struct.unpack_from(">QIIB", m, 2)
            self.name, _ = read_string(m, 2 + 17)
            emit({"event": "offer", "name": self.name, "size": total, "files": files, "folders": folders})
            self.root = os.path.join(self.out, self.name) if is_folder else self.out
            if is_folder:
                os.makedirs(self.root, exist_ok=True)
            self.ch.send(bytes([ACCEPT]))
        elif kind == ENTRY:
            k, mode, size = struct.unpack_from(">BHQ", m, 1)
            path, _ = read_string(m, 12)
            assert ".." not in path.split("/") and not path.startswith("/")
            full = os.path.join(self.root, path)
            if k == 1:
                os.makedirs(full, exist_ok=True)
                return
            self.path, self.mode = full, mode
            self.file = open(full + ".part", "wb")
            self.hash = hashlib.sha256()
            self.ch.send(bytes([RESUME]) + struct.pack(">Q", 0) + hashlib.sha256(b"").digest())
        elif kind == START:
            assert struct.unpack_from(">Q", m, 1)[0] == 0
        elif kind == DATA:
            self.file.write(m[1:])
            self.hash.update(m[1:])
        elif kind == END:
            self.file.close()
            ok = self.hash.digest() == m[1:33]
            os.rename(self.path + ".part", self.path)
            os.chmod(self.path, self.mode)
            emit({"event": "received", "path": os.path.relpath(self.path, self.out), "ok": ok, "sha256": self.hash.hexdigest()})
            self.ch.send(bytes([RESULT, 0 if ok else 1]))
        elif kind == DONE:
            self.ch.send(bytes([COMPLETE]))
            self.finished.set()
        elif kind == ABORT:
            emit({"event": "aborted", "reason": read_string(m, 1)[0]})
            self.finished.set()


class Sender:
    """Offers one file; `hostile` lies in one of four ways."""

    def __init__(self, ch, path, hostile, finished):
        self.ch, self.hostile, self.finished = ch, hostile, finished
        self.data = open(path, "rb").read() if path else b""
        self.name = os.path.basename(path) if path else "evil"
        ch.on("message", self.on_message)
        if hostile == "endless":
            ch.send(offer(self.name, 10, 1, 0, 0) + b"A" * 200_000)
        elif hostile:
            ch.send(offer("evil", 10, 1, 0, 1))
        else:
            ch.send(offer(self.name, len(self.data), 1, 0, 0))

    def on_message(self, m):
        kind = m[0]
        if kind == ACCEPT:
            emit({"event": "accepted"})
            if self.hostile == "traversal":
                self.ch.send(entry(0, 0o644, 5, "../escape.txt"))
            elif self.hostile == "absurd":
                self.ch.send(entry(0, 0o644, 2 ** 63, "huge"))
            elif self.hostile == "overflow":
                self.ch.send(entry(0, 0o644, 10, "small"))
            else:
                self.ch.send(entry(0, 0o644, len(self.data), self.name))
        elif kind == RESUME:
            offset = struct.unpack_from(">Q", m, 1)[0]
            if self.hostile == "overflow":
                self.ch.send(bytes([START]) + struct.pack(">Q", 0))
                for _ in range(4):
                    self.ch.send(bytes([DATA]) + b"x" * 1000)
                return
            if offset and hashlib.sha256(self.data[:offset]).digest() != m[9:41]:
                offset = 0
            self.ch.send(bytes([START]) + struct.pack(">Q", offset))
            asyncio.ensure_future(self.stream(offset))
        elif kind == RESULT:
            emit({"event": "result", "ok": m[1] == 0})
            self.ch.send(bytes([DONE]))
        elif kind == COMPLETE:
            emit({"event": "complete"})
            self.finished.set()
        elif kind in (ABORT, DECLINE):
            emit({"event": "aborted", "reason": read_string(m, 1)[0]})
            self.finished.set()

    async def stream(self, offset):
        for at in range(offset, len(self.data), CHUNK):
            self.ch.send(bytes([DATA]) + self.data[at:at + CHUNK])
            while self.ch.bufferedAmount > 1 << 20:
                await asyncio.sleep(0.005)
        self.ch.send(bytes([END]) + hashlib.sha256(self.data).digest())


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("mode", choices=["send", "receive"])
    ap.add_argument("code", nargs="?")
    ap.add_argument("--out")
    ap.add_argument("--file")
    ap.add_argument("--hostile", choices=["traversal", "absurd", "overflow", "endless"])
    args = ap.parse_args()
    device = "aiortc-" + secrets.token_hex(8)
    if args.mode == "send":
        while True:
            code = "%06d" % random.randrange(1000000)
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
    ws = await websockets.connect(f"ws://{u.hostname}:{u.port}/", max_size=None)
    pc = RTCPeerConnection()
    finished = asyncio.Event()
    pending = []
    keep = []

    def start_sending():
        ch = pc.createDataChannel("file", protocol="chatcli-file/1")
        ch.on("open", lambda: keep.append(Sender(ch, args.file, args.hostile, finished)))

    @pc.on("datachannel")
    def on_datachannel(ch):
        if ch.label == "file" and args.mode == "receive":
            keep.append(Receiver(ch, args.out, finished))
        elif ch.label == "chat" and args.mode == "send":
            start_sending()   # the chat channel is up: so is SCTP

    async def add_candidate(c):
        text = c.get("candidate") if isinstance(c, dict) else c
        if not text:
            return
        text = text[2:] if text.startswith("a=") else text
        text = text[len("candidate:"):] if text.startswith("candidate:") else text
        cand = candidate_from_sdp(text)
        cand.sdpMid, cand.sdpMLineIndex = "0", 0
        await pc.addIceCandidate(cand)

    async def finish_then_leave():
        await finished.wait()
        await acknowledged(pc)   # the last message must reach the peer before the close ABORTs
        await ws.send(json.dumps({"type": "leave_room"}))
        await ws.close()

    asyncio.ensure_future(finish_then_leave())
    await ws.send(json.dumps({"type": "join_room", "roomId": room}))
    try:
        async for raw in ws:
            msg = json.loads(raw)
            t = msg.get("type")
            if t == "room_ready" and msg.get("isInitiator"):
                chat = pc.createDataChannel("chat")
                if args.mode == "send":
                    chat.on("open", start_sending)
                await pc.setLocalDescription(await pc.createOffer())
                await ws.send(json.dumps({"type": "webrtc_offer", "sdp": pc.localDescription.sdp}))
            elif t in ("webrtc_offer", "webrtc_answer"):
                await pc.setRemoteDescription(RTCSessionDescription(sdp=msg["sdp"], type=t[len("webrtc_"):]))
                for c in pending:
                    await add_candidate(c)
                pending.clear()
                if t == "webrtc_offer":
                    await pc.setLocalDescription(await pc.createAnswer())
                    await ws.send(json.dumps({"type": "webrtc_answer", "sdp": pc.localDescription.sdp}))
            elif t == "ice_candidate":
                if pc.remoteDescription is None:
                    pending.append(msg["candidate"])
                else:
                    await add_candidate(msg["candidate"])
            elif t in ("peer_left", "peer_disconnected"):
                break
    except websockets.ConnectionClosed:
        pass
    await pc.close()
    emit({"event": "closed"})


asyncio.run(main())
