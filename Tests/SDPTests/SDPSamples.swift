/// Sample descriptions in the shape each stack produces (values invented).
enum SDPSamples {
    /// Chrome data-channel-only offer (after gathering one host candidate).
    static let chromeOffer = [
        "v=0",
        "o=- 4640010796743273391 2 IN IP4 127.0.0.1",
        "s=-",
        "t=0 0",
        "a=group:BUNDLE 0",
        "a=extmap-allow-mixed",
        "a=msid-semantic: WMS",
        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel",
        "c=IN IP4 0.0.0.0",
        "a=candidate:3091073559 1 udp 2113937151 c17ad899-fc88-4380-9152-8a02ba055a45.local 58111 typ host generation 0 network-cost 999",
        "a=ice-ufrag:OpDk",
        "a=ice-pwd:OPd9GWsmjbN25gJMosh+0wjg",
        "a=ice-options:trickle",
        "a=fingerprint:sha-256 5D:1B:58:32:D5:5D:1B:FE:CD:24:7B:17:C5:B6:9B:1F:D2:AB:B6:B5:36:6D:76:43:5F:A6:0B:8A:14:61:02:46",
        "a=setup:actpass",
        "a=mid:0",
        "a=sctp-port:5000",
        "a=max-message-size:262144",
    ].joined(separator: "\r\n") + "\r\n"

    /// Firefox offer: fingerprint and ice-options at session level, LF endings
    /// here to exercise the lenient line splitting.
    static let firefoxOffer = [
        "v=0",
        "o=mozilla...THIS_IS_SDPARTA-99.0 1770155960218066011 0 IN IP4 0.0.0.0",
        "s=-",
        "t=0 0",
        "a=sendrecv",
        "a=fingerprint:sha-256 3B:8F:2C:11:9A:0E:77:D4:C5:62:19:AB:F0:43:8E:7D:21:90:6C:5A:BE:13:F8:47:0D:C9:A2:66:31:5B:E4:08",
        "a=group:BUNDLE 0",
        "a=ice-options:trickle",
        "a=msid-semantic:WMS *",
        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel",
        "c=IN IP4 0.0.0.0",
        "a=sendrecv",
        "a=ice-pwd:6d5b2f0e4c1a9d8e7f6a5b4c3d2e1f00",
        "a=ice-ufrag:a1b2c3d4",
        "a=mid:0",
        "a=setup:actpass",
        "a=sctp-port:5000",
        "a=max-message-size:1073741823",
    ].joined(separator: "\n") + "\n"

    /// aiortc offer: real port and address, candidates and end-of-candidates
    /// before the credentials, three fingerprints, an audio section first.
    static let aiortcOffer = [
        "v=0",
        "o=- 3889153880 3889153880 IN IP4 0.0.0.0",
        "s=-",
        "t=0 0",
        "a=group:BUNDLE 0 1",
        "a=msid-semantic:WMS *",
        "m=audio 47000 UDP/TLS/RTP/SAVPF 96 0 8",
        "c=IN IP4 192.168.1.20",
        "a=sendrecv",
        "a=mid:0",
        "a=rtpmap:96 opus/48000/2",
        "a=ice-ufrag:AUDIOufrag",
        "a=ice-pwd:AUDIOpasswordAUDIOpassword",
        "a=fingerprint:sha-256 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00",
        "a=setup:actpass",
        "m=application 46347 UDP/DTLS/SCTP webrtc-datachannel",
        "c=IN IP4 192.168.1.20",
        "a=mid:1",
        "a=sctp-port:5000",
        "a=max-message-size:65536",
        "a=candidate:5b1e8a3c2f 1 udp 2130706431 192.168.1.20 46347 typ host",
        "a=candidate:9d0c4e7b11 1 udp 1694498815 203.0.113.7 46347 typ srflx raddr 192.168.1.20 rport 46347",
        "a=end-of-candidates",
        "a=ice-ufrag:Xa9k",
        "a=ice-pwd:Q2x7mPz0Lr5TvWc8Yb3Nd6Hs",
        "a=fingerprint:sha-256 AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99",
        "a=fingerprint:sha-384 " + (0..<48).map { _ in "1F" }.joined(separator: ":"),
        "a=fingerprint:sha-512 " + (0..<64).map { _ in "2E" }.joined(separator: ":"),
        "a=setup:actpass",
    ].joined(separator: "\r\n") + "\r\n"

    /// Pre-RFC 8841 form: DTLS/SCTP profile, port as format, sctpmap.
    static let legacyOffer = [
        "v=0",
        "o=- 4180923533468039353 2 IN IP4 127.0.0.1",
        "s=-",
        "t=0 0",
        "a=group:BUNDLE data",
        "m=application 51377 DTLS/SCTP 5001",
        "c=IN IP4 192.168.0.3",
        "a=ice-ufrag:WdJ0",
        "a=ice-pwd:ZEAjTPMS9mEejlMII04gABCD",
        "a=fingerprint:sha-1 " + (0..<20).map { _ in "ab" }.joined(separator: ":"),
        "a=setup:actpass",
        "a=mid:data",
        "a=sctpmap:5001 webrtc-datachannel 1024",
    ].joined(separator: "\r\n") + "\r\n"
}
