#!/usr/bin/env python3
"""NFQUEUE delayer for Tools/natlab: holds every queued packet for a fixed time.

The kernel here has no sch_netem, so natlab queues packets to userspace with
`iptables -j NFQUEUE` and this process gives each one its ACCEPT verdict
DELAY milliseconds after it arrived. It speaks nfnetlink_queue directly over an
AF_NETLINK socket (no libnetfilter_queue, no PyPI package), so it only needs
python3. It must run inside the network namespace whose queue it serves
(natlab starts it with `ip netns exec`).

Usage: delayer.py --queue N --delay-ms MS

The delay is constant, so packets leave in arrival order (FIFO): no reordering.
Only the packet id is needed for a verdict, so the kernel copies metadata only.
Per-packet work is kept out of Python as far as it goes, so that the delayer
is not what limits a transfer through the lab (`Tools/bench longpath`
measures that): the queue hands over GSO packets whole (NFQA_CFG_F_GSO) rather
than cut into segments; every recv() buffer (many packets) is one entry of
the pending list, stamped with its arrival time and the id of its last
packet; and one batch verdict (NFQNL_MSG_VERDICT_BATCH: every id up to N)
releases everything that is due, since ids only grow.
"""

import argparse
import collections
import os
import select
import signal
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
SOL_NETLINK = 270
NETLINK_NO_ENOBUFS = 5

NLMSG_ERROR = 2
NLM_F_REQUEST = 1
NLM_F_ACK = 4

NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQNL_MSG_VERDICT_BATCH = 3

NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2

NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQA_CFG_QUEUE_MAXLEN = 3
NFQA_CFG_MASK = 4
NFQA_CFG_FLAGS = 5

NFQNL_CFG_CMD_BIND = 1
NFQNL_CFG_CMD_UNBIND = 2
NFQNL_COPY_META = 1
NFQA_CFG_F_FAIL_OPEN = 1
NFQA_CFG_F_GSO = 4

NF_ACCEPT = 1
AF_UNSPEC = 0

PACKET_MSG = (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET
QUEUE_MAXLEN = 65536
RECV_BUFFER = 1 << 20


def nla(kind, payload):
    """One netlink attribute, padded to 4 bytes."""
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * ((4 - length % 4) % 4)


class Queue:
    def __init__(self, num):
        self.num = num
        self.seq = 0
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        # A burst that overflows the socket buffer must not kill the loop.
        self.sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
        self.sock.bind((0, 0))

    def send(self, msg_type, attrs, ack=False):
        self.seq += 1
        body = struct.pack("=BB", AF_UNSPEC, 0) + struct.pack("!H", self.num) + b"".join(attrs)
        flags = NLM_F_REQUEST | (NLM_F_ACK if ack else 0)
        header = struct.pack("=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | msg_type, flags, self.seq, 0)
        self.sock.send(header + body)
        if ack:
            self.expect_ack()

    def expect_ack(self):
        data = self.sock.recv(65536)
        _, msg_type, _, _, _ = struct.unpack_from("=IHHII", data, 0)
        if msg_type == NLMSG_ERROR:
            (err,) = struct.unpack_from("=i", data, 16)
            if err != 0:
                raise OSError(-err, "nfnetlink_queue config: " + os.strerror(-err))

    def configure(self):
        self.send(NFQNL_MSG_CONFIG, [nla(NFQA_CFG_CMD, struct.pack("!BxH", NFQNL_CFG_CMD_BIND, 0))], ack=True)
        self.send(NFQNL_MSG_CONFIG, [nla(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META))], ack=True)
        self.send(NFQNL_MSG_CONFIG, [nla(NFQA_CFG_QUEUE_MAXLEN, struct.pack("!I", QUEUE_MAXLEN))], ack=True)
        # Fail open: if the queue ever overflows, pass packets undelayed rather than drop them.
        # GSO: a GSO packet is queued (and delayed) whole instead of being segmented first.
        flags = struct.pack("!I", NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_GSO)
        self.send(NFQNL_MSG_CONFIG, [nla(NFQA_CFG_MASK, flags), nla(NFQA_CFG_FLAGS, flags)], ack=True)

    def unbind(self):
        try:
            self.send(NFQNL_MSG_CONFIG, [nla(NFQA_CFG_CMD, struct.pack("!BxH", NFQNL_CFG_CMD_UNBIND, 0))])
        except OSError:
            pass

    def accept_through(self, packet_id):
        """ACCEPT every queued packet whose id is at most `packet_id`."""
        self.send(NFQNL_MSG_VERDICT_BATCH, [nla(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, packet_id))])


def last_packet_id(data, size):
    """The id of the last queued packet in one recv() buffer (which holds
    whole netlink messages, one per packet), or None if it holds none."""
    last = None
    offset = 0
    while offset + 16 <= size:
        length, msg_type = struct.unpack_from("=IH", data, offset)
        if length < 16 or offset + length > size:
            break
        if msg_type == PACKET_MSG:
            last = offset
        offset += (length + 3) & ~3
    if last is None:
        return None
    length = struct.unpack_from("=I", data, last)[0]
    attr, end = last + 20, last + length  # nlmsghdr (16) + nfgenmsg (4)
    while attr + 4 <= end:
        alen, atype = struct.unpack_from("=HH", data, attr)
        if alen < 4:
            break
        if (atype & 0x3FFF) == NFQA_PACKET_HDR and alen >= 4 + 7:
            return struct.unpack_from("!I", data, attr + 4)[0]
        attr += (alen + 3) & ~3
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queue", type=int, default=0)
    parser.add_argument("--delay-ms", type=float, required=True)
    args = parser.parse_args()
    delay = args.delay_ms / 1000.0

    queue = Queue(args.queue)
    queue.configure()

    running = True

    def stop(*_):
        nonlocal running
        running = False

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    pending = collections.deque()  # (due, last packet id of one recv() buffer), due ascending
    buffer = bytearray(RECV_BUFFER)
    queue.sock.setblocking(False)
    print(f"delayer: queue {args.queue}, delay {args.delay_ms:g} ms", file=sys.stderr, flush=True)
    while running:
        now = time.monotonic()
        due = None
        while pending and pending[0][0] <= now:
            due = pending.popleft()[1]
        if due is not None:
            queue.accept_through(due)
        timeout = max(0.0, pending[0][0] - now) if pending else 1.0
        try:
            readable, _, _ = select.select([queue.sock], [], [], timeout)
        except InterruptedError:
            continue
        if not readable:
            continue
        arrived = time.monotonic()
        while True:  # drain the socket: one entry per buffer
            try:
                size = queue.sock.recv_into(buffer)
            except (BlockingIOError, InterruptedError):
                break
            packet_id = last_packet_id(buffer, size)
            if packet_id is not None:
                pending.append((arrived + delay, packet_id))
    # Release whatever is still held so no packet is stranded.
    if pending:
        queue.accept_through(pending[-1][1])
    queue.unbind()


if __name__ == "__main__":
    main()
