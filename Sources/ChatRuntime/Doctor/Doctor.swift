import ChatClient
import HTTP1
import Runtime
import STUN
import Wire

/// `chatcli doctor`: is the signaling server reachable (and its TLS sound),
/// which ICE servers does it hand out, and how does this host's NAT map UDP
/// (RFC 5780 tests against the server's two STUN ports)?
public final class Doctor {
    public struct Report: Sendable {
        public var server: String
        public var reachable = false
        public var tls: Bool
        public var latencyMilliseconds: Double?
        public var serverError: String?
        public var iceServers: [String] = []
        public var stunServer: String?
        public var stunRTTMilliseconds: Double?
        public var srflx: String?
        /// Nil when no STUN server could be tried or the server was unreachable and STUN silent.
        public var nat: NATBehaviour?
        /// One relay round trip per TURN server offered (with credentials).
        var turn: [TURNCheck.Result] = []
        /// The server gives TURN credentials only to room members, so there
        /// were none to test (the doctor is in no room).
        public var turnMembersOnly = false

        /// Whether the address the server saw is a global one (nil: none seen).
        public var srflxIsGlobal: Bool?
        /// What the default gateway offers for port mapping.
        var portMapping: PortMappingCheck.Result?

        var summary: String {
            if nat != nil, nat != .udpBlocked, srflxIsGlobal == false {
                return "The server sees this host's own address, which is not a public one: the server is on this host "
                    + "or its private network, so this says nothing about the NAT between you and the internet; "
                    + "run 'chatcli doctor --server URL' against a server on the internet to test it."
            }
            if let nat { return nat.meaning }
            return "The NAT could not be tested: " + (reachable ? "no STUN server was available." : "the server is unreachable.")
        }

        public var json: JSON {
            let mapping: JSON = portMapping?.json ?? .null
            return .object([
                "server": .string(server), "reachable": .bool(reachable), "tls": .bool(tls),
                "latency_ms": latencyMilliseconds.map { .number(Doctor.rounded($0)) } ?? .null,
                "server_error": serverError.map(JSON.string) ?? .null,
                "ice_servers": .array(iceServers.map(JSON.string)),
                "stun": stunServer.map(JSON.string) ?? .null,
                "stun_rtt_ms": stunRTTMilliseconds.map { .number(Doctor.rounded($0)) } ?? .null,
                "srflx": srflx.map(JSON.string) ?? .null,
                "nat": nat.map { .string($0.rawValue) } ?? .null, "summary": .string(summary),
                "turn": .array(turn.map(\.json)), "turn_members_only": .bool(turnMembersOnly),
                "port_mapping": mapping,
            ])
        }

        public var text: String {
            var lines: [String] = []
            if reachable {
                let ms = latencyMilliseconds.map { " in \(Doctor.rounded($0)) ms" } ?? ""
                lines.append("Server:  \(server) answered\(ms)\(tls ? " over verified TLS" : " (plain HTTP)").")
            } else {
                lines.append("Server:  \(server) is NOT reachable. \(serverError ?? "It did not answer.")")
            }
            lines.append("ICE:     " + (iceServers.isEmpty ? "none offered" : iceServers.joined(separator: ", ")))
            if let srflx {
                let rtt = stunRTTMilliseconds.map { " (STUN round trip \(Doctor.rounded($0)) ms)" } ?? ""
                lines.append("Address: this host is seen as \(srflx)\(rtt).")
            }
            lines.append("NAT:     " + (nat.map { "\($0.rawValue). " } ?? "") + summary)
            lines.append("TURN:    " + turnText)
            if let portMapping { lines.append("Mapping: " + portMapping.text) }
            return lines.joined(separator: "\n")
        }

        private var turnText: String {
            if !turn.isEmpty { return turn.map(\.text).joined(separator: "\n         ") }
            if turnMembersOnly {
                return "not tested: this server gives TURN credentials only to members of a room (serve --turn-members-only); "
                    + "chats get them once paired"
            }
            return "none offered with credentials (chats need a direct path)"
        }
    }

    let loop: EventLoop
    let http: HTTPClient
    let server: ServerURL
    /// `--ca-file`, trusted for `turns:` relays too.
    let caFile: String?
    /// The user's `--ice-server` entries (STUN, and TURN with credentials).
    let extraICEServers: [ICEServerEntry]
    var report: Report

    public init(loop: EventLoop, connector: Connector, extraICEServers: [ICEServerEntry]) {
        self.loop = loop
        self.http = HTTPClient(connector: connector)
        self.server = connector.server
        caFile = connector.caFile
        self.extraICEServers = extraICEServers
        report = Report(server: connector.server.description, tls: connector.server.secure)
    }

    /// Off with `--no-port-mapping`: the router is not asked.
    public var portMapping = true

    /// The gateway's port mapping is asked in parallel with the server checks.
    public func run(_ done: @escaping (Report) -> Void) {
        guard portMapping else { return runChecks(done) }
        var mapping: PortMappingCheck.Result?
        var checked: Report?
        let check = PortMappingCheck(loop: loop)
        check.run { result in
            mapping = result
            if var report = checked {
                report.portMapping = result
                done(report)
            }
            _ = check
        }
        runChecks { report in
            guard let mapping else { return checked = report }
            var report = report
            report.portMapping = mapping
            done(report)
        }
    }

    private func runChecks(_ done: @escaping (Report) -> Void) {
        let started = loop.now
        var health = HTTPRequest(method: "GET", target: "/healthz")
        health.headers.add("Host", server.authority)
        http.send(health, timeout: .seconds(10)) { [self] result in
            switch result {
            case .success(let response):
                report.reachable = true
                report.latencyMilliseconds = Doctor.milliseconds(loop.now - started)
                if response.status != 200 { report.serverError = "GET /healthz answered \(response.status) (not a chatcli server?)" }
                fetchICEServers(done)
            case .failure(let error):
                report.serverError = error.message
                useICEServers([]) { [self] report in checkTURN(extraICEServers, report, done) }
            }
        }
    }

    private func fetchICEServers(_ done: @escaping (Report) -> Void) {
        http.send(RoomAPI.iceServersRequest(authority: server.authority)) { [self] result in
            let response = try? result.get()
            let entries = response.map(RoomAPI.iceServers) ?? []
            report.turnMembersOnly = response.map(RoomAPI.isTURNMembersOnly) ?? false
            useICEServers(entries.flatMap(\.urls)) { [self] report in
                checkTURN(extraICEServers + entries, report, done)
            }
        }
    }

    private func useICEServers(_ offered: [String], _ done: @escaping (Report) -> Void) {
        http.close()
        // Inviso offers none: fall back to the signaling host's STUN port, as clients do.
        let urls = offered.isEmpty ? ["stun:\(server.authorityHost):3478"] : offered
        let extraURLs = extraICEServers.flatMap(\.urls)
        report.iceServers = urls + extraURLs
        guard let stun = (extraURLs + urls).lazy.compactMap(ICEServerURL.init).first(where: { $0.isSTUN }) else {
            return loop.execute { [self] in done(report) }
        }
        // Off the loop: a name that does not resolve must not freeze the checks.
        Resolver.resolve(host: stun.host, port: stun.port, loop: loop) { [self] result in
            guard let address = try? result.get().first, let target = STUNAddress(address) else { return done(report) }
            report.stunServer = address.description
            probe(target, family: address.family, done)
        }
    }

    private func probe(_ target: STUNAddress, family: SocketAddress.Family, _ done: @escaping (Report) -> Void) {
        let probe: STUNProbe
        do {
            probe = try STUNProbe(loop: loop, family: family)
        } catch {
            done(report)
            return
        }
        var tests = NATClassifier(server: target)
        let port = probe.socket.localAddress.port
        tests.localAddresses = NetworkInterfaces.addresses(includeLoopback: true).compactMap { STUNAddress($0.with(port: port)) }
        let finish = { [self] in
            probe.close()
            let behaviour = tests.behaviour
            // Silence from a server we could not reach says nothing about UDP.
            report.nat = behaviour == .udpBlocked && !report.reachable ? nil : behaviour
            report.srflx = tests.mappedI?.description
            report.srflxIsGlobal = tests.mappedI?.isGlobal
            done(report)
        }
        probe.query(target) { [self] message, rtt in
            guard let message, let mapped = message.reflexiveAddress else { return finish() }
            tests.mappedI = mapped
            tests.other = message.otherAddress
            report.stunRTTMilliseconds = Doctor.milliseconds(rtt)
            guard let second = tests.targetII else { return finish() }
            probe.query(second) { message, _ in
                tests.mappedII = message?.reflexiveAddress
                guard let third = tests.targetIII, tests.mappedII != tests.mappedI else { return finish() }
                probe.query(third) { message, _ in
                    tests.mappedIII = message?.reflexiveAddress
                    finish()
                }
            }
        }
    }

    static func milliseconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) * 1000 + Double(atto) / 1e15
    }

    static func rounded(_ ms: Double) -> Double { (ms * 10).rounded() / 10 }
}

extension ServerURL {
    /// The host as a URL wants it (IPv6 in brackets), without the port.
    var authorityHost: String { host.contains(":") ? "[\(host)]" : host }
}
