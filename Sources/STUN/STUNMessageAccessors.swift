/// Typed look-ups of the first attribute of each kind, so callers do not
/// pattern-match the attribute list themselves.
extension STUNMessage {
    public func attribute(_ type: STUNAttributeType) -> STUNAttribute? {
        attributes.first { $0.type == type }
    }

    public func contains(_ type: STUNAttributeType) -> Bool {
        attributes.contains { $0.type == type }
    }

    public var xorMappedAddress: STUNAddress? {
        for case .xorMappedAddress(let address) in attributes { return address }
        return nil
    }

    public var mappedAddress: STUNAddress? {
        for case .mappedAddress(let address) in attributes { return address }
        return nil
    }

    /// XOR-MAPPED-ADDRESS, or MAPPED-ADDRESS from a server that only sends
    /// the older attribute (RFC 8489 §14.1 keeps it for compatibility).
    public var reflexiveAddress: STUNAddress? { xorMappedAddress ?? mappedAddress }

    public var otherAddress: STUNAddress? {
        for case .otherAddress(let address) in attributes { return address }
        return nil
    }

    public var responseOrigin: STUNAddress? {
        for case .responseOrigin(let address) in attributes { return address }
        return nil
    }

    public var alternateServer: STUNAddress? {
        for case .alternateServer(let address) in attributes { return address }
        return nil
    }

    public var xorPeerAddress: STUNAddress? {
        for case .xorPeerAddress(let address) in attributes { return address }
        return nil
    }

    public var xorRelayedAddress: STUNAddress? {
        for case .xorRelayedAddress(let address) in attributes { return address }
        return nil
    }

    public var username: String? {
        for case .username(let text) in attributes { return text }
        return nil
    }

    public var realm: String? {
        for case .realm(let text) in attributes { return text }
        return nil
    }

    public var nonce: String? {
        for case .nonce(let text) in attributes { return text }
        return nil
    }

    public var software: String? {
        for case .software(let text) in attributes { return text }
        return nil
    }

    public var errorCode: STUNErrorCode? {
        for case .errorCode(let error) in attributes { return error }
        return nil
    }

    public var unknownAttributes: [STUNAttributeType]? {
        for case .unknownAttributes(let types) in attributes { return types }
        return nil
    }

    public var priority: UInt32? {
        for case .priority(let value) in attributes { return value }
        return nil
    }

    public var lifetime: UInt32? {
        for case .lifetime(let seconds) in attributes { return seconds }
        return nil
    }

    public var data: [UInt8]? {
        for case .data(let bytes) in attributes { return bytes }
        return nil
    }
}
