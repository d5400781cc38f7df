/// The server side of Binding (RFC 8489 §6.3.1) with the RFC 5780 NAT
/// behaviour discovery additions, sans-IO: datagram and addresses in,
/// response bytes out.
///
/// Non-STUN input and anything that is not a request (indications,
/// stray responses) get no answer, so the responder cannot be used to
/// reflect traffic. Requests that frame as STUN but are malformed get 400,
/// requests with unknown comprehension-required attributes 420 with
/// UNKNOWN-ATTRIBUTES, and Binding requests a success response with
/// XOR-MAPPED-ADDRESS, RESPONSE-ORIGIN, OTHER-ADDRESS and SOFTWARE. Every
/// answer ends with FINGERPRINT.
public struct STUNResponder: Sendable {
    /// The server's alternate transport address for OTHER-ADDRESS.
    public enum OtherAddress: Hashable, Sendable {
        case none
        /// Same IP as the request arrived on, this port: a single-IP server
        /// listening on two ports (`--stun-port` and the next one).
        case port(UInt16)
        /// A fully specified alternate address (a second IP as well).
        case address(STUNAddress)
    }

    /// A response and the local address it must be sent from, which
    /// differs from the receiving address when CHANGE-REQUEST asked for it.
    public struct Reply: Hashable, Sendable {
        public let bytes: [UInt8]
        public let origin: STUNAddress
    }

    public var software: String?
    public var otherAddress: OtherAddress
    /// MAPPED-ADDRESS too, for RFC 3489-era clients that only read that.
    public var includesMappedAddress: Bool

    public init(software: String? = nil, otherAddress: OtherAddress = .none, includesMappedAddress: Bool = false) {
        self.software = software
        self.otherAddress = otherAddress
        self.includesMappedAddress = includesMappedAddress
    }

    /// The response to send back from the receiving socket, or `nil` for
    /// no answer. A CHANGE-REQUEST asking for another origin is answered
    /// 420 here, as RFC 5780 §7.2 asks of a server that cannot honour it;
    /// use `reply(to:from:receivedOn:)` to honour it.
    public func respond(to datagram: [UInt8], from source: STUNAddress, receivedOn local: STUNAddress) -> [UInt8]? {
        answer(datagram, from: source, local: local, canChangeOrigin: false)?.bytes
    }

    /// Like `respond`, but honours CHANGE-REQUEST when `otherAddress` allows
    /// it: the reply's `origin` says which local address to send from.
    public func reply(to datagram: [UInt8], from source: STUNAddress, receivedOn local: STUNAddress) -> Reply? {
        answer(datagram, from: source, local: local, canChangeOrigin: true)
    }

    private func answer(_ datagram: [UInt8], from source: STUNAddress, local: STUNAddress, canChangeOrigin: Bool) -> Reply? {
        guard let header = STUNFrame.header(datagram), header.type.messageClass == .request else { return nil }
        func failure(_ code: STUNErrorCode, unknown: [STUNAttributeType] = []) -> Reply {
            Reply(bytes: errorResponse(to: header.type.method, header.id, code, unknown: unknown), origin: local)
        }
        // A FINGERPRINT that does not match means the datagram is not ours
        // to answer (RFC 8489 §7.3: it may be another protocol).
        if STUNMessage.verifyFingerprint(of: datagram) == .invalid,
           (try? STUNFrame.parse(datagram)) != nil {
            return nil
        }
        let request: STUNMessage
        do {
            request = try STUNMessage.decode(datagram)
        } catch {
            return failure(.badRequest)
        }
        let unknown = request.unknownComprehensionRequiredAttributes
        guard unknown.isEmpty else { return failure(.unknownAttribute, unknown: unknown) }
        guard request.type.method == .binding else { return failure(.badRequest) }

        let other = resolvedOtherAddress(local: local)
        var origin = local
        for case .changeRequest(let changeIP, let changePort) in request.attributes where changeIP || changePort {
            guard canChangeOrigin, let other,
                  let changed = changedOrigin(local: local, other: other, changeIP: changeIP, changePort: changePort)
            else { return failure(.unknownAttribute, unknown: [.changeRequest]) }
            origin = changed
        }

        var attributes: [STUNAttribute] = [.xorMappedAddress(source)]
        if includesMappedAddress { attributes.append(.mappedAddress(source)) }
        if !Self.isUnspecified(origin) { attributes.append(.responseOrigin(origin)) }
        if let other, !Self.isUnspecified(other) { attributes.append(.otherAddress(other)) }
        if let software { attributes.append(.software(software)) }
        let response = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: attributes)
        return Reply(bytes: response.encoded(fingerprint: true), origin: origin)
    }

    private func errorResponse(
        to method: STUNMethod, _ id: STUNTransactionID, _ code: STUNErrorCode, unknown: [STUNAttributeType]
    ) -> [UInt8] {
        var attributes: [STUNAttribute] = [.errorCode(code)]
        if !unknown.isEmpty { attributes.append(.unknownAttributes(unknown)) }
        if let software { attributes.append(.software(software)) }
        let type = STUNMessageType(method: method, messageClass: .errorResponse)
        return STUNMessage(type: type, transactionID: id, attributes: attributes).encoded(fingerprint: true)
    }

    private func resolvedOtherAddress(local: STUNAddress) -> STUNAddress? {
        switch otherAddress {
        case .none: nil
        case .port(let port): local.with(port: port)
        case .address(let address): address
        }
    }

    /// RFC 5780 §7.2: change the IP, the port or both to the alternate
    /// ones. Impossible (nil) when the alternate has the same IP but a
    /// change of IP is asked, or a different family.
    private func changedOrigin(local: STUNAddress, other: STUNAddress, changeIP: Bool, changePort: Bool) -> STUNAddress? {
        guard other.family == local.family else { return nil }
        if changeIP && other.ip == local.ip { return nil }
        if changePort && other.port == local.port { return nil }
        let ip = changeIP ? other.ip : local.ip
        return STUNAddress(ip: ip, port: changePort ? other.port : local.port)
    }

    /// A wildcard bind address tells the client nothing, so it is left out.
    private static func isUnspecified(_ address: STUNAddress) -> Bool {
        address.ip.allSatisfy { $0 == 0 }
    }
}
