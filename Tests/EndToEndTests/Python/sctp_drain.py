"""Waiting until aiortc's SCTP has delivered what it was given.

aiortc's `RTCPeerConnection.close()` ABORTs the association (RFC 4960 §9.1),
which throws away every DATA chunk not yet acknowledged; `bufferedAmount`
reaching 0 means only "handed to SCTP". A test peer that closes after its
last message must first wait for that message's SACK, or, on a lossy path,
the retransmission it still owed dies with the association.
"""
import asyncio


async def acknowledged(pc, limit=30.0):
    """Returns once nothing is queued or in flight on `pc`'s SCTP association, or after `limit` seconds."""
    association = pc.sctp   # RTCSctpTransport: the association itself
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while association is not None and loop.time() < deadline:
        if not association._outbound_queue and not association._sent_queue:
            return
        await asyncio.sleep(0.02)
