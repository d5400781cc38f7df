/// `a=candidate` attribute text (RFC 8839 §5.1):
///
///     candidate:<foundation> <component-id> <transport> <priority>
///         <connection-address> <port> typ <cand-type>
///         [raddr <address>] [rport <port>] *(<name> <value>)
///
/// Parsing is lenient where real stacks differ (an optional `a=` and
/// `candidate:` prefix, any case for the transport and keywords, runs of
/// spaces, a trailing CR) and strict where a mistake would mislead the
/// agent (numbers out of range, unknown candidate types, a dangling
/// extension name).
extension ICECandidate {
    public init?(sdpAttribute text: String) {
        var body = Substring(text)
        while let last = body.last, last.isWhitespace { body = body.dropLast() }
        while let first = body.first, first.isWhitespace { body = body.dropFirst() }
        if body.lowercased().hasPrefix("a=") { body = body.dropFirst(2) }
        if body.lowercased().hasPrefix("candidate:") { body = body.dropFirst("candidate:".count) }
        let tokens = body.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard tokens.count >= 8, tokens.count <= 64 else { return nil }

        let foundation = tokens[0]
        guard (1...32).contains(foundation.count), foundation.allSatisfy(ICECredentials.iceChars.contains),
              let component = Self.number(tokens[1], UInt16.self), (1...256).contains(component),
              !tokens[2].isEmpty, tokens[2].count <= 32, tokens[2].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
              let priority = Self.number(tokens[3], UInt32.self),
              !tokens[4].isEmpty, tokens[4].count <= 255,
              let port = Self.number(tokens[5], UInt16.self),
              tokens[6].lowercased() == "typ",
              let type = ICECandidateType(rawValue: tokens[7].lowercased())
        else { return nil }

        var relatedAddress: String?
        var relatedPort: UInt16?
        var tcpType: String?
        var extensions: [Extension] = []
        var index = 8
        while index < tokens.count {
            guard index + 1 < tokens.count else { return nil }
            let name = tokens[index], value = tokens[index + 1]
            switch name.lowercased() {
            case "raddr":
                relatedAddress = value
            case "rport":
                guard let number = Self.number(value, UInt16.self) else { return nil }
                relatedPort = number
            case "tcptype":
                tcpType = value
            default:
                extensions.append(Extension(name: name, value: value))
            }
            index += 2
        }
        self.init(
            foundation: foundation, component: component, transport: tokens[2], priority: priority,
            connectionAddress: tokens[4], port: port, type: type, relatedAddress: relatedAddress,
            relatedPort: relatedPort, tcpType: tcpType, extensions: extensions)
    }

    /// The attribute value with its `candidate:` prefix and no `a=`, as
    /// browsers put it in `RTCIceCandidate.candidate` and the signaling
    /// `ice_candidate` message carries it.
    public var sdpAttribute: String {
        var text = "candidate:\(foundation) \(component) \(transport) \(priority) \(connectionAddress) \(port) typ \(type.rawValue)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        if let tcpType { text += " tcptype \(tcpType)" }
        for item in extensions { text += " \(item.name) \(item.value)" }
        return text
    }

    /// Decimal digits only (no sign, no spaces), within the type's range.
    private static func number<T: FixedWidthInteger>(_ text: String, _: T.Type) -> T? {
        guard !text.isEmpty, text.count <= 20, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return T(text)
    }
}
