extension SessionDescription {
    /// The SDP text, CRLF-terminated lines in the order browsers use, nothing
    /// else: every other stack's parser (aiortc's is the strictest) accepts it.
    public func serialized() -> String {
        let mid = self.mid ?? "0"
        var lines: [String] = [
            "v=0",
            "o=- \(sessionID) 2 IN IP4 127.0.0.1",
            "s=-",
            "t=0 0",
            "a=group:BUNDLE \(mid)",
        ]
        if iceLite { lines.append("a=ice-lite") }
        lines.append("m=application \(port) UDP/DTLS/SCTP webrtc-datachannel")
        lines.append("c=IN IP4 0.0.0.0")
        for candidate in candidates {
            lines.append("a=" + (candidate.hasPrefix("candidate:") ? candidate : "candidate:" + candidate))
        }
        if endOfCandidates { lines.append("a=end-of-candidates") }
        lines.append("a=ice-ufrag:\(iceUfrag)")
        lines.append("a=ice-pwd:\(icePwd)")
        if !iceOptions.isEmpty { lines.append("a=ice-options:" + iceOptions.joined(separator: " ")) }
        for fingerprint in fingerprints { lines.append("a=fingerprint:\(fingerprint.sdpValue)") }
        lines.append("a=setup:\((setup ?? .actpass).rawValue)")
        if let tlsID { lines.append("a=tls-id:\(tlsID)") }
        if codePAKE { lines.append("a=x-chatcli-pake") }
        lines.append("a=mid:\(mid)")
        lines.append("a=sctp-port:\(sctpPort)")
        if let maxMessageSize { lines.append("a=max-message-size:\(maxMessageSize)") }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// ICE credentials (RFC 8445 §5.3): ufrag ≥ 4 and pwd ≥ 22 ice-chars; we use
    /// 8 and 24 (48 and 144 bits) from the injected generator.
    public static func makeICECredentials<R: RandomNumberGenerator>(using rng: inout R) -> (ufrag: String, pwd: String) {
        let iceChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        func random(_ n: Int) -> String { String((0..<n).map { _ in iceChars[Int(rng.next() % 64)] }) }
        return (random(8), random(24))
    }
}
