import STUN

extension PortMapper {
    /// The gateway's answer to HTTP exchange `id`: the whole response as
    /// read, or nil if the connection failed or the answer was too large.
    public func handleHTTPResponse(_ bytes: [UInt8]?, id: Int, now: Duration) {
        guard case .upnp(let step, let request, _) = state, request == id else { return }
        let response = bytes.flatMap(UPnP.parseResponse)
        switch step {
        case .description(let location):
            guard let response, response.status == 200,
                  let control = UPnP.parseDescription(response.body, gateway: gateway, base: location)
            else {
                offers.upnp = false
                return fail(.refused, now: now)
            }
            upnpControl = control
            // The internal port is suggested as the external one, as routers usually grant it.
            addUPnP(control, externalPort: client.port, lease: config.lifetime, attempt: 0, now: now)
        case .add(let control, let externalPort, let lease, let attempt):
            switch response.map(UPnP.parseSOAP) {
            case .success?:
                let id = takeHTTPID()
                transmits.append(.http(id: id, to: control.location.host, request: UPnP.getExternalIPAddress(control)))
                state = .upnp(.externalAddress(control, externalPort: externalPort, lease: lease), request: id,
                              deadline: now + config.httpTimeout)
            case .fault(UPnP.conflictInMappingEntry?)? where attempt < 3 && upnpRefreshing == nil:
                // Someone else holds that port: another from the dynamic range.
                addUPnP(control, externalPort: UInt16.random(in: 49152...65535, using: &random), lease: lease,
                        attempt: attempt + 1, now: now)
            case .fault(UPnP.onlyPermanentLeasesSupported?)? where lease != 0:
                addUPnP(control, externalPort: externalPort, lease: 0, attempt: attempt + 1, now: now)
            default:
                upnpFailed(now: now)
            }
        case .externalAddress(_, let externalPort, let lease):
            guard case .success(let ip?)? = response.map(UPnP.parseSOAP),
                  let external = STUNAddress(ip: ip, port: externalPort)
            else { return upnpFailed(now: now) }
            offers.externalIP = offers.externalIP ?? ip
            let mapping = PortMapping(method: .upnp, external: external, lifetime: lease)
            if let old = upnpRefreshing {
                upnpRefreshing = nil
                return refreshed(old, to: mapping, now: now)
            }
            guard ExternalAddress.isUsable(external) else {
                deleteMapping(mapping)
                return fail(.unreachableExternalAddress, now: now)
            }
            adopt(mapping, now: now)
        }
    }

    func addUPnP(_ control: UPnP.Control, externalPort: UInt16, lease: UInt32, attempt: Int, now: Duration) {
        let id = takeHTTPID()
        transmits.append(.http(id: id, to: control.location.host,
                               request: UPnP.addPortMapping(control, externalPort: externalPort, internalPort: client.port,
                                                            internalClient: ipText(client.ip), lease: lease)))
        state = .upnp(.add(control, externalPort: externalPort, lease: lease, attempt: attempt), request: id,
                      deadline: now + config.httpTimeout)
    }

    /// A refused refresh loses the mapping; a refused first request means none.
    func upnpFailed(now: Duration) {
        if let old = upnpRefreshing {
            upnpRefreshing = nil
            state = .finished
            events.append(.lost(old))
            return
        }
        fail(.refused, now: now)
    }
}
