extension WebSocketConnection {
    /// Processes bytes from the socket and returns what they meant. Input
    /// after the connection closed is ignored.
    public mutating func feed<C: Collection>(_ bytes: C) -> [WebSocketEvent] where C.Element == UInt8 {
        guard state != .closed else { return [] }
        inbound.append(contentsOf: bytes)
        var events: [WebSocketEvent] = []
        do {
            while state != .closed, try step(&events) {}
        } catch {
            fail(error, &events)
        }
        if state == .closed {
            // Nothing more will be read: free the buffers now.
            inbound = .init()
            message = []
        }
        return events
    }

    /// Handles at most one frame (or one piece of skipped payload); false when
    /// more bytes are needed.
    private mutating func step(_ events: inout [WebSocketEvent]) throws(WebSocketError) -> Bool {
        if discardRemaining > 0 {
            discardRemaining -= inbound.skip(discardRemaining)
            return discardRemaining == 0
        }
        guard let header = try WebSocketFrameHeader.parse(inbound) else { return false }
        try checkRules(header)

        // Subtraction, not addition: a hostile 63-bit length must not overflow.
        if !header.opcode.isControl, discardingMessage || header.payloadLength > maxMessageSize - message.count {
            return try discardFrame(header, &events)
        }
        guard inbound.count - header.headerLength >= header.payloadLength else { return false }
        inbound.skip(header.headerLength)
        if header.opcode == .text || header.opcode == .binary { messageOpcode = header.opcode }
        var payload = inbound.read(header.payloadLength) ?? []
        if let key = header.maskKey { WebSocketFrame.applyMask(key, to: &payload) }

        switch header.opcode {
        case .ping:
            if state == .open { queueFrame(.pong, payload) }
            events.append(.ping(payload))
        case .pong:
            events.append(.pong(payload))
        case .close:
            try receiveClose(payload, &events)
        case .text, .binary, .continuation:
            try receiveData(payload, fin: header.fin, &events)
        }
        return true
    }

    /// Rules that depend on the role and on the message in progress (§5.1, §5.2, §5.4).
    private func checkRules(_ header: WebSocketFrameHeader) throws(WebSocketError) {
        guard header.rsv == 0 else { throw .reservedBitsSet }
        switch role {
        case .server: guard header.maskKey != nil else { throw .unmaskedClientFrame }
        case .client: guard header.maskKey == nil else { throw .maskedServerFrame }
        }
        switch header.opcode {
        case .continuation: guard messageOpcode != nil else { throw .unexpectedContinuation }
        case .text, .binary: guard messageOpcode == nil else { throw .expectedContinuation }
        case .close, .ping, .pong: break
        }
    }

    /// Skips a data frame of a message that is over the limit.
    private mutating func discardFrame(_ header: WebSocketFrameHeader, _ events: inout [WebSocketEvent]) throws(WebSocketError) -> Bool {
        // Recorded so that continuation order is still enforced while skipping.
        if header.opcode != .continuation { messageOpcode = header.opcode }
        if !discardingMessage {
            let (sum, overflow) = message.count.addingReportingOverflow(header.payloadLength)
            let size = overflow ? Int.max : sum
            guard oversizedMessagePolicy == .reportAndDiscard else { throw .messageTooBig(size) }
            events.append(.messageTooBig(limit: maxMessageSize))
            discardingMessage = true
            message = []
        }
        // The header must be complete before it is consumed; the payload then
        // goes away as it arrives without ever being buffered.
        inbound.skip(header.headerLength)
        discardRemaining = header.payloadLength - inbound.skip(header.payloadLength)
        if header.fin { endMessage() }
        return true
    }

    private mutating func receiveData(_ payload: [UInt8], fin: Bool, _ events: inout [WebSocketEvent]) throws(WebSocketError) {
        if messageOpcode == .text, !messageUTF8.validate(payload) { throw .invalidUTF8 }
        if message.isEmpty, fin {
            message = payload  // the common single-frame message: no second copy
        } else {
            message.append(contentsOf: payload)
        }
        guard fin else { return }
        if messageOpcode == .text {
            guard messageUTF8.isComplete else { throw .invalidUTF8 }
            events.append(.text(String(decoding: message, as: UTF8.self)))
        } else {
            events.append(.binary(message))
        }
        endMessage()
    }

    private mutating func endMessage() {
        messageOpcode = nil
        message = []
        messageUTF8 = UTF8Validator()
        discardingMessage = false
    }

    /// §5.5.1 and §7.4: a Close body is empty or a valid code plus a UTF-8 reason.
    private mutating func receiveClose(_ payload: [UInt8], _ events: inout [WebSocketEvent]) throws(WebSocketError) {
        var code: WebSocketCloseCode?
        var reason = ""
        if !payload.isEmpty {
            guard payload.count >= 2 else { throw .invalidClosePayload }
            let c = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
            guard c.isValidOnWire else { throw .invalidCloseCode(c.rawValue) }
            let text = payload.dropFirst(2)
            guard UTF8Validator.isValid(text) else { throw .invalidUTF8 }
            code = c
            reason = String(decoding: text, as: UTF8.self)
        }
        // §5.5.1: answer with a Close, echoing the status code.
        if state == .open { queueClose(code, reason: "") }
        state = .closed
        events.append(.close(code: code, reason: reason))
    }

    private mutating func fail(_ error: WebSocketError, _ events: inout [WebSocketEvent]) {
        if state == .open { queueClose(error.closeCode ?? .protocolError, reason: "") }
        state = .closed
        events.append(.failed(error))
    }
}
