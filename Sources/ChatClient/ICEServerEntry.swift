/// One entry of `/api/ice-servers` (WebRTC's `RTCIceServer`).
public struct ICEServerEntry: Equatable, Sendable {
    public var urls: [String]
    public var username: String?
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }
}
