extension SCTPAssociation {
    /// One line of the sender's and receiver's state, for `CHATCLI_DEBUG_SCTP`
    /// traces and bug reports: window, flight, the peer's window, what is
    /// queued and held, the congestion control's model, the retransmission
    /// timer and the counters.
    public var diagnostics: String {
        var fields = [
            "cwnd=\(congestion.window)", "flight=\(flightSize)", "peer_rwnd=\(peerReceiverWindow)",
            "rwnd=\(receiverWindow)", "reassembly=\(reassembly.bufferedBytes)", "unread=\(eventBytes)", "held=\(heldBytes)",
            "queued=\(sendQueue.bufferedBytes)", "outstanding=\(retransmissionQueue.outstandingBytes)",
            "rtx_pending=\(retransmitList.count)", "rto_ms=\(Self.milliseconds(rto.rto))",
            "srtt_ms=\(rto.srtt.map(Self.milliseconds) ?? -1)", "t3_armed=\(t3Deadline != nil)",
        ]
        if let bbr = congestion.bbr {
            fields += ["bbr=\(bbr.mode)", "bw=\(Int(bbr.bandwidth.isFinite ? bbr.bandwidth : -1))",
                       "max_bw=\(Int(bbr.maxBandwidth))", "pacing=\(Int(bbr.pacingRate))",
                       "min_rtt_ms=\(bbr.minRTT.map(Self.milliseconds) ?? -1)",
                       "inflight_hi=\(bbr.inflightHi == Int.max ? -1 : bbr.inflightHi)",
                       "inflight_lo=\(bbr.inflightLo == Int.max ? -1 : bbr.inflightLo)"]
        }
        let s = statistics
        fields += ["sent=\(s.dataChunksSent)", "fast_rtx=\(s.fastRetransmissions)", "lost_rtx=\(s.lostRetransmissions)",
                   "rtx_chunks=\(s.retransmittedChunks)", "t3=\(s.t3Expirations)", "sacks_sent=\(s.sacksSent)",
                   "received=\(s.dataChunksReceived)", "dup=\(s.duplicateChunksReceived)"]
        return fields.joined(separator: " ")
    }

    private static func milliseconds(_ d: Duration) -> Int {
        let c = d.components
        return Int(c.seconds) * 1000 + Int(c.attoseconds / 1_000_000_000_000_000)
    }
}
