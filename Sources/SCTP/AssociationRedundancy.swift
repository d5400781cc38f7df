/// Chat lines that survive a lost packet without a round trip of
/// recovery. Any retransmission, however early (fast retransmit, RACK,
/// a tail-loss probe), reaches the peer at the soonest a round trip and a
/// half after the line was sent: the loss must first show in a SACK. A
/// line typed during a transfer on a lossy path must arrive within the
/// one-way delay and a little more, so a small message on a stream marked
/// redundant goes out twice: its DATA chunk once as usual and once more,
/// byte for byte with the same TSN, `redundancySpacing` later in another
/// packet. The peer keeps the first copy to arrive and reports the other as a
/// duplicate (RFC 9260 §6.2), as it does for any duplicated packet, so
/// every SCTP stack (browsers', aiortc's) takes it. With independent
/// losses of probability p a line needs recovery with p² (10⁻⁴ at 1 %);
/// the cost is one small packet per line, outside the congestion window,
/// as RACK-TLP's probe is (RFC 8985 §7).
extension SCTPAssociation {
    /// The second copy leaves this long after the first: not in the same
    /// GSO burst (1 ms) nor the same tail-drop episode of a queue a burst
    /// overflowed, yet early enough to arrive within the 50 ms of slack.
    static let redundancySpacing: Duration = .milliseconds(5)
    /// Only messages that fit one chunk of at most this many bytes are sent
    /// twice: chat lines, not files.
    static let maxRedundantMessage = 1024

    /// Small messages queued on `stream` from now on are sent twice (see
    /// above): for a stream of chat lines, whose latency matters more than
    /// a few hundred bytes each.
    public func setRedundant(_ redundant: Bool, stream: UInt16) {
        if redundant { redundantStreams.insert(stream) } else { redundantStreams.remove(stream) }
    }

    /// A DATA chunk went out for the first time: schedules its copy when
    /// it is a whole small message on a redundant stream.
    func noteFirstTransmission(_ d: DataChunk, size: Int) {
        let whole = DataChunk.beginningFlag | DataChunk.endingFlag
        guard d.flags & whole == whole, size <= Self.maxRedundantMessage, !redundantStreams.isEmpty,
              redundantStreams.contains(d.streamID) else { return }
        redundantCopies.append((d.tsn, now + Self.redundancySpacing))
    }

    // Karn's rule is kept loosely: an acknowledgement of a line whose first
    // copy was lost times the second, so that RTT sample is up to
    // `redundancySpacing` long; it never lowers BBR's min-RTT.

    /// When the next copy is due, for ``pollTimeout()``.
    var redundancyDeadline: Duration? { redundantCopies.first?.due }

    var redundantCopyDue: Bool { redundantCopies.first.map { $0.due <= now } ?? false }

    /// Writes the copies due now whose chunk is still outstanding, sent
    /// once and not acknowledged; forgets the rest. Returns whether it
    /// wrote any.
    func writeRedundantCopies(into out: inout [UInt8], limit: Int) -> Bool {
        var wrote = false
        while let (tsn, due) = redundantCopies.first, due <= now {
            guard let i = retransmissionQueue.index(of: tsn) else {
                redundantCopies.removeFirst()
                continue
            }
            let c = retransmissionQueue[i]
            guard !c.gapAcked, !c.needsRetransmit, c.transmissions == 1 else {
                redundantCopies.removeFirst()
                continue
            }
            if out.count + 16 + ((c.size + 3) & ~3) > limit { break }
            ChunkEncoder.encode(.data(DataChunk(flags: c.flags, tsn: tsn, streamID: c.streamID, streamSequence: c.streamSequence,
                                                ppid: c.ppid, userData: c.payload)), into: &out)
            redundantCopies.removeFirst()
            statistics.redundantCopiesSent += 1
            wrote = true
        }
        return wrote
    }
}
