import STUN

extension PortMapper {
    /// A datagram received from the gateway (on the socket the probes went
    /// out of). Anything not from the gateway, not well-formed or not an
    /// answer to what is outstanding is ignored.
    public func handleDatagram(_ bytes: [UInt8], from source: STUNAddress, now: Duration) {
        guard source.ip == gateway else { return }
        if source.port == PCP.serverPort {
            // A version-0 "unsupported version" for opcode 1 answers our PCP MAP (RFC 6887 §9);
            // for opcode 0 it is NAT-PMP refusing its own external address request.
            if let answer = PCP.parse(bytes), bytes.first == PCP.version || bytes[1] == 0x80 | PCP.opcodeMAP && isUnsupportedVersion(answer) {
                return handlePCP(answer, now: now)
            }
            if let answer = NATPMP.parse(bytes) { handleNATPMP(answer, now: now) }
            return
        }
        guard config.methods.contains(.upnp), let location = UPnP.parseSearchResponse(bytes, gateway: gateway) else { return }
        // Recorded even once mapped by another protocol: doctor reports every one that answered.
        offers.upnp = offers.upnp ?? true
        if case .probing = state, upnpLocation == nil {
            upnpLocation = location
            chooseFallback(now: now, probeOver: false)
        }
    }

    /// A NAT-PMP-only server's answer to the PCP request (RFC 6887 §9).
    private func isUnsupportedVersion(_ answer: PCP.Answer) -> Bool {
        if case .error(version: 0, let result) = answer { return result == PCP.ResultCode.unsuppVersion.rawValue }
        return false
    }

    private func handlePCP(_ answer: PCP.Answer, now: Duration) {
        switch answer {
        case .error(let version, _):
            guard case .probing = state, !pcpFailed else { return }
            pcpFailed = true
            offers.pcp = version == PCP.version ? false : nil
            chooseFallback(now: now, probeOver: false)
        case .map(let response):
            guard response.nonce == nonce, response.internalPort == client.port, response.lifetime > 0 else { return }
            let mapping = PortMapping(method: .pcp, external: response.external, lifetime: response.lifetime)
            switch state {
            case .probing:
                offers.pcp = true
                offers.externalIP = response.external.ip
                guard ExternalAddress.isUsable(response.external) else {
                    failure = .unreachableExternalAddress
                    pcpFailed = true
                    transmits.append(.datagram(pcpRequest(lifetime: 0), to: gatewayPCP))
                    return chooseFallback(now: now, probeOver: false)
                }
                adopt(mapping, now: now)
            case .refreshing(let old, _) where old.method == .pcp:
                refreshed(old, to: mapping, now: now)
            default:
                break
            }
        }
    }

    private func handleNATPMP(_ answer: NATPMP.Answer, now: Duration) {
        switch answer {
        case .externalAddress(_, _, let ip):
            offers.natPMP = true
            guard case .probing = state, natPMPExternal == nil, !natPMPFailed else { return }
            offers.externalIP = offers.externalIP ?? ip
            guard let address = STUNAddress(ip: ip, port: 1), ExternalAddress.isUsable(address) else {
                failure = .unreachableExternalAddress
                natPMPFailed = true
                return chooseFallback(now: now, probeOver: false)
            }
            natPMPExternal = ip
            chooseFallback(now: now, probeOver: false)
        case .map(_, _, let internalPort, let externalPort, let lifetime):
            guard internalPort == client.port, lifetime > 0, externalPort != 0 else { return }
            switch state {
            case .natPMP(let ip, _):
                guard let external = STUNAddress(ip: ip, port: externalPort) else { return }
                adopt(PortMapping(method: .natPMP, external: external, lifetime: lifetime), now: now)
            case .refreshing(let old, _) where old.method == .natPMP:
                guard let external = STUNAddress(ip: old.external.ip, port: externalPort) else { return }
                refreshed(old, to: PortMapping(method: .natPMP, external: external, lifetime: lifetime), now: now)
            default:
                break
            }
        case .error(let opcode, _):
            switch state {
            case .probing where opcode == NATPMP.opcodeExternalAddress && !natPMPFailed:
                natPMPFailed = true
                offers.natPMP = false
                chooseFallback(now: now, probeOver: false)
            case .natPMP:
                natPMPFailed = true
                fail(.refused, now: now)
            default:
                break
            }
        }
    }

    func refreshed(_ old: PortMapping, to mapping: PortMapping, now: Duration) {
        guard ExternalAddress.isUsable(mapping.external) else {
            resend = nil
            state = .finished
            events.append(.lost(old))
            return
        }
        adopt(mapping, now: now, announce: mapping.external != old.external)
    }

    /// Once PCP is out of the running, the next protocol that answered
    /// takes over: NAT-PMP, then UPnP. Before the probe window ends a
    /// better protocol's answer is waited for; after it, none is.
    func chooseFallback(now: Duration, probeOver: Bool) {
        guard case .probing = state else { return }
        let pcpOut = pcpFailed || probeOver
        let natPMPOut = natPMPFailed || probeOver
        if pcpOut, let ip = natPMPExternal {
            let request = NATPMP.mapRequest(internalPort: client.port, suggestedExternalPort: client.port, lifetime: config.lifetime)
            transmits.append(.datagram(request, to: gatewayPCP))
            state = .natPMP(externalIP: ip, deadline: now + config.httpTimeout)
            resend = (bytes: [request], next: now + (config.retransmitDelays.first ?? config.httpTimeout), index: 0)
            return
        }
        guard pcpOut, natPMPOut || natPMPExternal == nil && probeOver else { return }
        if let location = upnpLocation {
            resend = nil
            let id = takeHTTPID()
            transmits.append(.http(id: id, to: location.host, request: UPnP.descriptionRequest(location)))
            state = .upnp(.description(location), request: id, deadline: now + config.httpTimeout)
            return
        }
        if probeOver || !config.methods.contains(.upnp) {
            fail(offers == PortMappingOffers() ? .noGateway : (failure ?? .refused), now: now)
        }
    }

    func refresh(_ mapping: PortMapping, now: Duration) {
        let request: [UInt8]
        switch mapping.method {
        case .pcp:
            request = pcpRequest(lifetime: config.lifetime, suggested: mapping.external)
        case .natPMP:
            request = NATPMP.mapRequest(internalPort: client.port, suggestedExternalPort: mapping.external.port, lifetime: config.lifetime)
        case .upnp:
            guard let control = upnpControl else { return }
            upnpRefreshing = mapping
            return addUPnP(control, externalPort: mapping.external.port, lease: mapping.lifetime, attempt: 0, now: now)
        }
        transmits.append(.datagram(request, to: gatewayPCP))
        state = .refreshing(mapping, deadline: now + config.httpTimeout)
        resend = (bytes: [request], next: now + (config.retransmitDelays.first ?? config.httpTimeout), index: 0)
    }
}
