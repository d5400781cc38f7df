"""An aioice peer for the ICE interop test, driven by JSON lines.

Usage: python aioice_peer.py controlling|controlled
stdout: {"ufrag","pwd","candidates":[...]} once gathered, then {"connected":true},
        {"received": "<text>"} for data from the peer, {"error": "..."} on failure.
stdin:  {"ufrag","pwd","candidates":[...]} from the peer (candidate strings with
        or without the "candidate:" prefix), then {"send": "<text>"} lines.
"""
import asyncio
import json
import sys

import aioice


def emit(obj):
    print(json.dumps(obj), flush=True)


def strip(c):
    for prefix in ("a=candidate:", "candidate:"):
        if c.startswith(prefix):
            return c[len(prefix):]
    return c


async def main():
    controlling = sys.argv[1] == "controlling"
    conn = aioice.Connection(ice_controlling=controlling, components=1, use_ipv6=False)
    await conn.gather_candidates()
    emit({"ufrag": conn.local_username, "pwd": conn.local_password,
          "candidates": ["candidate:" + c.to_sdp() for c in conn.local_candidates]})
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    remote = json.loads(await reader.readline())
    conn.remote_username = remote["ufrag"]
    conn.remote_password = remote["pwd"]
    for c in remote["candidates"]:
        await conn.add_remote_candidate(aioice.Candidate.from_sdp(strip(c)))
    await conn.add_remote_candidate(None)
    try:
        await asyncio.wait_for(conn.connect(), 20)
    except Exception as e:  # noqa: BLE001 - report any failure to the test
        emit({"error": repr(e)})
        return
    emit({"connected": True})

    async def receive():
        while True:
            data = await conn.recv()
            emit({"received": data.decode()})

    async def commands():
        while True:
            line = await reader.readline()
            if not line:
                return
            cmd = json.loads(line)
            if "send" in cmd:
                await conn.send(cmd["send"].encode())

    task = asyncio.ensure_future(receive())
    await commands()
    task.cancel()
    await conn.close()


asyncio.run(main())
