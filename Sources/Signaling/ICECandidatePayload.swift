import Wire

/// The `candidate` member of an `ice_candidate` message:
/// `{"candidate":{"candidate":C,"sdpMLineIndex":0,"sdpMid":"0"}}`.
///
/// `C` is the SDP attribute value with its `candidate:` prefix, as browsers
/// send it; an `a=` prefix is accepted and removed. An empty or null `C`
/// (or a missing inner object) marks end-of-candidates.
public struct ICECandidatePayload: Equatable, Sendable {
    /// `candidate:…`, or nil for end-of-candidates.
    public var candidate: String?
    public var sdpMLineIndex: Int
    public var sdpMid: String

    public init(candidate: String?, sdpMLineIndex: Int = 0, sdpMid: String = "0") {
        self.candidate = candidate.flatMap { $0.isEmpty ? nil : $0 }
        self.sdpMLineIndex = sdpMLineIndex
        self.sdpMid = sdpMid
    }

    public var isEndOfCandidates: Bool { candidate == nil }

    /// Decodes the whole message object (or its payload members wrapped in
    /// an object). A bare string `candidate` is accepted too.
    public init?(json: JSON) {
        guard json.isObject else { return nil }
        switch json["candidate"] {
        case .none, .some(.null):
            self.init(candidate: nil)
        case .some(.string(let text)):
            self.init(candidate: ICECandidatePayload.normalize(text))
        case .some(let inner) where inner.isObject:
            let text = inner["candidate"]?.stringValue.map(ICECandidatePayload.normalize)
            self.init(
                candidate: text, sdpMLineIndex: inner["sdpMLineIndex"]?.intValue ?? 0,
                sdpMid: inner["sdpMid"]?.stringValue ?? "0")
        default:
            return nil
        }
    }

    /// `{"candidate":{"candidate":C,"sdpMLineIndex":N,"sdpMid":M}}`; C is `""` at end-of-candidates.
    public var json: JSON {
        [
            "candidate": [
                "candidate": .string(candidate ?? ""),
                "sdpMLineIndex": JSON(sdpMLineIndex),
                "sdpMid": .string(sdpMid),
            ]
        ]
    }

    /// The `ice_candidate` client message carrying this payload.
    public var message: ClientMessage {
        guard case .object(let members) = json else { return .relay(type: MessageType.iceCandidate, payload: []) }
        return .relay(type: MessageType.iceCandidate, payload: members)
    }

    private static func normalize(_ text: String) -> String {
        text.hasPrefix("a=") ? String(text.dropFirst(2)) : text
    }
}

extension ClientMessage {
    public static func offer(sdp: String) -> ClientMessage { .relay(type: MessageType.webrtcOffer, payload: [("sdp", .string(sdp))]) }
    public static func answer(sdp: String) -> ClientMessage { .relay(type: MessageType.webrtcAnswer, payload: [("sdp", .string(sdp))]) }
}
