extension SessionDescription {
    /// Parses a remote offer or answer. Unknown lines are ignored; what a data
    /// channel cannot do without (a data section, ICE credentials, a
    /// fingerprint) is an error.
    public static func parse(_ text: String) throws(SDPError) -> SessionDescription {
        var session = AttributeSet()
        var sections: [MediaSection] = []
        var sessionID = "0"
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = rawLine.trimmingTrailingWhitespace()
            guard line.count >= 2, line.dropFirst().first == "=" , let kind = line.first else { continue }
            let value = line.dropFirst(2)
            switch kind {
            case "m":
                sections.append(MediaSection(mLine: value))
            case "o" where sections.isEmpty:
                let fields = value.split(separator: " ")
                if fields.count >= 2 { sessionID = String(fields[1]) }
            case "a":
                if sections.isEmpty { session.add(value) } else { sections[sections.count - 1].attributes.add(value) }
            default:
                continue
            }
        }
        guard let data = pickDataSection(sections) else { throw .noDataChannelSection }
        let media = data.attributes
        // RFC 8122 §5 / RFC 8839 §5.4: media-level values override session-level ones.
        guard let ufrag = media.iceUfrag ?? session.iceUfrag, !ufrag.isEmpty,
              let pwd = media.icePwd ?? session.icePwd, !pwd.isEmpty
        else { throw .missingICECredentials }
        let fingerprints = media.fingerprints.isEmpty ? session.fingerprints : media.fingerprints
        guard !fingerprints.isEmpty else { throw .missingFingerprint }

        var description = SessionDescription(
            sessionID: sessionID, iceUfrag: ufrag, icePwd: pwd, fingerprints: fingerprints,
            setup: .actpass, mid: "0",
            sctpPort: media.sctpPort ?? data.legacySCTPPort ?? 5000,
            maxMessageSize: media.maxMessageSize,
            iceOptions: media.iceOptions ?? session.iceOptions ?? [],
            iceLite: session.iceLite || media.iceLite,
            candidates: session.candidates + media.candidates,
            endOfCandidates: session.endOfCandidates || media.endOfCandidates,
            port: data.port)
        description.setup = media.setup ?? session.setup
        description.tlsID = media.tlsID ?? session.tlsID
        description.codePAKE = media.codePAKE || session.codePAKE
        description.mid = media.mid
        return description
    }

    /// The first usable `m=application` section speaking SCTP over DTLS; one
    /// with port 0 is rejected (RFC 8866 §5.14) unless it is bundle-only.
    private static func pickDataSection(_ sections: [MediaSection]) -> MediaSection? {
        let candidates = sections.filter(\.isDataChannel)
        return candidates.first { $0.port != 0 } ?? candidates.first { $0.attributes.bundleOnly }
    }
}

/// One m= line and the attributes under it.
struct MediaSection {
    var media = ""
    var port = 0
    var proto = ""
    var formats: [Substring] = []
    var attributes = AttributeSet()

    init(mLine: Substring) {
        let fields = mLine.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 3 else { return }
        media = String(fields[0])
        // "9" or "9/2" (port/number-of-ports)
        port = fields[1].split(separator: "/").first.flatMap { Int($0) } ?? 0
        proto = String(fields[2])
        formats = Array(fields.dropFirst(3))
    }

    var isDataChannel: Bool {
        media == "application" && (proto.uppercased().hasSuffix("DTLS/SCTP") || formats.contains("webrtc-datachannel"))
    }

    /// Pre-RFC 8841 `m=application 9 DTLS/SCTP 5000`: the format is the port.
    var legacySCTPPort: Int? {
        formats.lazy.compactMap { SessionDescription.parsePort($0) }.first ?? attributes.sctpmapPort
    }
}

/// The attributes we understand, from one level (session or media).
struct AttributeSet {
    var iceUfrag: String?
    var icePwd: String?
    var iceOptions: [String]?
    var iceLite = false
    var fingerprints: [SDPFingerprint] = []
    var setup: DTLSSetup?
    var tlsID: String?
    var codePAKE = false
    var mid: String?
    var sctpPort: Int?
    var sctpmapPort: Int?
    var maxMessageSize: Int?
    var candidates: [String] = []
    var endOfCandidates = false
    var bundleOnly = false

    /// `value` is what follows `a=`: `name` or `name:value`.
    mutating func add(_ attribute: Substring) {
        let name: Substring, value: Substring
        if let colon = attribute.firstIndex(of: ":") {
            name = attribute[..<colon]
            value = attribute[attribute.index(after: colon)...]
        } else {
            name = attribute
            value = ""
        }
        let trimmed = value.trimmingWhitespace()
        switch name.lowercased() {
        case "ice-ufrag": iceUfrag = String(trimmed)
        case "ice-pwd": icePwd = String(trimmed)
        case "ice-options": iceOptions = trimmed.split(separator: " ").map(String.init)
        case "ice-lite": iceLite = true
        case "fingerprint":
            let fields = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count == 2 { fingerprints.append(SDPFingerprint(algorithm: String(fields[0]), value: String(fields[1]))) }
        case "setup": setup = DTLSSetup(rawValue: trimmed.lowercased())
        case "tls-id":
            // RFC 8842 §5.2: 20 to 255 characters of [A-Za-z0-9+/]
            if (20...255).contains(trimmed.count), trimmed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }) {
                tlsID = String(trimmed)
            }
        case "x-chatcli-pake": codePAKE = true
        case "mid": mid = String(trimmed)
        case "sctp-port": sctpPort = SessionDescription.parsePort(trimmed)
        case "sctpmap":
            // a=sctpmap:5000 webrtc-datachannel 1024 (draft-ietf-mmusic-sctp-sdp-05)
            if let first = trimmed.split(separator: " ").first { sctpmapPort = SessionDescription.parsePort(first) }
        case "max-message-size":
            if trimmed.count <= 18, trimmed.allSatisfy(\.isASCIIDigit), let n = Int(trimmed) { maxMessageSize = n }
        case "candidate": if !trimmed.isEmpty { candidates.append("candidate:" + trimmed) }
        case "end-of-candidates": endOfCandidates = true
        case "bundle-only": bundleOnly = true
        default: break
        }
    }
}

extension SessionDescription {
    static func parsePort(_ text: Substring) -> Int? {
        guard text.count <= 5, !text.isEmpty, text.allSatisfy(\.isASCIIDigit), let n = Int(text), n <= 65_535 else { return nil }
        return n
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        return s.trimmingTrailingWhitespace()
    }

    func trimmingTrailingWhitespace() -> Substring {
        var s = self
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return s
    }
}
