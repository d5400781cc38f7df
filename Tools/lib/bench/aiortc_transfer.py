"""Data-channel transfer benchmark for aiortc: the same measurements as
chatcli-bench (Sources/chatcli-bench), for comparison.

Two RTCPeerConnections in one asyncio process on 127.0.0.1 (host candidates
only, no STUN server, SDP handed over directly):
  setup   median over 5 fresh pairs, from creating the offerer to the channel
          open on both sides (ms);
  bulk    16 KiB messages for DURATION s, the sender pausing while more than
          1 MiB is buffered and resuming below 256 KiB; bytes received / window
          (MB/s, MB = 10^6 bytes);
  small   the same with 100-byte messages (messages/s);
  rtt     1,000 sequential 100-byte ping-pongs after 20 warm-ups (µs);
  cpu     process CPU time during bulk per MB received (ms/MB).
Prints one JSON line ({"stack":"aiortc",...}); progress goes to stderr.
"""

import argparse
import asyncio
import json
import logging
import resource
import statistics
import sys
import time

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection

HIGH_WATER = 1 << 20
LOW_WATER = 256 << 10

# Host candidates on loopback only (aioice skips 127.0.0.1 by default).
aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=True: ["127.0.0.1"]


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def connect():
    """A fresh pair; returns (pc1, pc2, offerer channel, answerer channel, setup seconds)."""
    start = time.perf_counter()
    config = RTCConfiguration(iceServers=[])
    pc1 = RTCPeerConnection(config)
    pc2 = RTCPeerConnection(config)
    loop = asyncio.get_running_loop()
    opened1, remote = loop.create_future(), loop.create_future()
    channel1 = pc1.createDataChannel("chat")
    channel1.on("open", lambda: opened1.done() or opened1.set_result(None))

    @pc2.on("datachannel")
    def on_datachannel(channel):
        if not remote.done():
            remote.set_result(channel)

    await pc1.setLocalDescription(await pc1.createOffer())
    await pc2.setRemoteDescription(pc1.localDescription)
    await pc2.setLocalDescription(await pc2.createAnswer())
    await pc1.setRemoteDescription(pc2.localDescription)
    channel2 = await asyncio.wait_for(remote, 10)
    await asyncio.wait_for(opened1, 10)
    setup = time.perf_counter() - start
    return pc1, pc2, channel1, channel2, setup


async def close(pc1, pc2):
    await pc1.close()
    await pc2.close()


async def measure_setup(pairs=5):
    samples = []
    for _ in range(pairs):
        pc1, pc2, _, _, setup = await connect()
        samples.append(setup * 1000)
        await close(pc1, pc2)
    return statistics.median(samples)


async def measure_stream(size, seconds):
    pc1, pc2, sender, receiver, _ = await connect()
    payload = "x" * size
    counted = {"bytes": 0, "messages": 0, "on": True}

    @receiver.on("message")
    def on_message(message):
        if counted["on"]:
            counted["bytes"] += len(message)
            counted["messages"] += 1

    low = asyncio.Event()
    sender.bufferedAmountLowThreshold = LOW_WATER
    sender.on("bufferedamountlow", low.set)

    async def fill():
        while True:
            while sender.bufferedAmount <= HIGH_WATER:
                sender.send(payload)
            low.clear()
            # The event fires when the amount crosses the threshold downwards;
            # re-check in case it already did before clear().
            if sender.bufferedAmount >= LOW_WATER:
                await low.wait()
            else:
                await asyncio.sleep(0)

    cpu0, t0 = cpu_seconds(), time.perf_counter()
    task = asyncio.create_task(fill())
    await asyncio.sleep(seconds)
    counted["on"] = False
    elapsed, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    await close(pc1, pc2)
    return counted["bytes"], counted["messages"], elapsed, cpu


async def measure_rtt(count=1000, warm_up=20, size=100):
    pc1, pc2, pinger, ponger, _ = await connect()
    payload = "p" * size
    loop = asyncio.get_running_loop()
    ponger.on("message", lambda message: ponger.send(message))
    waiter = {"future": None}

    @pinger.on("message")
    def on_pong(message):
        future = waiter["future"]
        if future is not None and not future.done():
            future.set_result(time.perf_counter_ns())

    samples = []
    for i in range(warm_up + count):
        waiter["future"] = loop.create_future()
        sent = time.perf_counter_ns()
        pinger.send(payload)
        received = await asyncio.wait_for(waiter["future"], 10)
        if i >= warm_up:
            samples.append((received - sent) / 1000)
    await close(pc1, pc2)
    return samples


def percentile(values, p):
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-int(p * len(ordered)) // 100)))
    return ordered[rank - 1]


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=5.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)

    print("aiortc: setup", file=sys.stderr)
    setup = await measure_setup()
    print("aiortc: bulk", file=sys.stderr)
    bulk_bytes, _, bulk_elapsed, bulk_cpu = await measure_stream(16 * 1024, args.duration)
    print("aiortc: small", file=sys.stderr)
    _, small_messages, small_elapsed, _ = await measure_stream(100, args.duration)
    print("aiortc: rtt", file=sys.stderr)
    rtt = await measure_rtt()
    megabytes = bulk_bytes / 1e6
    print(json.dumps({
        "stack": "aiortc",
        "setup_ms": round(setup, 2),
        "bulk_MBps": round(megabytes / bulk_elapsed, 1),
        "small_msgs_per_s": round(small_messages / small_elapsed),
        "rtt_us_median": round(statistics.median(rtt), 1),
        "rtt_us_p99": round(percentile(rtt, 99), 1),
        "cpu_ms_per_MB": round(bulk_cpu * 1000 / megabytes, 2) if megabytes else None,
    }, separators=(",", ":")))


if __name__ == "__main__":
    asyncio.run(main())
