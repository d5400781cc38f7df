import ChatClient
import Glibc
import Redis
import Runtime
import SignalingServer
import Terminal
import TURNServer

/// `chatcli serve`: validate options, start the service, run until SIGINT or
/// SIGTERM, then shut down gracefully and exit 130 or 143 (128 + the signal,
/// as a shell reports a process the signal ended, so scripts and service
/// managers see why it stopped).
enum ServeCommand {
    static func run(_ args: ParsedArguments) -> Int32 {
        var config: ServerConfiguration
        do {
            config = try configuration(args)
        } catch {
            Output.write("chatcli: \(error.message)\n", to: 2)
            return 2
        }
        do {
            if args.value("db") == nil && config.redis == nil { config.databasePath = try defaultDatabase() }
            let loop = try EventLoop()
            var status: Int32 = 0
            // Signals are blocked (for signalfd) before the service starts its
            // checkpoint thread, which inherits the mask.
            var service: SignalingService?
            try loop.onSignal([SIGINT, SIGTERM]) { signal in
                if status == 0 { status = 128 + signal }
                if let service { service.shutdown { loop.stop() } } else { loop.stop() }
            }
            service = try SignalingService(loop: loop, config: config)
            try service?.start()
            loop.run()
            return status
        } catch let error as ServerError {
            Output.write("chatcli: \(error.description)\n", to: 2)
        } catch {
            Output.write("chatcli: cannot start the server: \(error)\n", to: 2)
        }
        return 1
    }

    /// `$XDG_STATE_HOME/chatcli/rooms.db` (else under ~/.local/state), its directory created.
    static func defaultDatabase() throws(ServerError) -> String {
        let environment = ["XDG_STATE_HOME", "HOME"].reduce(into: [String: String]()) { $0[$1] = ChatCommand.environment($1) }
        guard let path = RoomDatabasePath.standard(environment: environment) else { throw .noStateDirectory }
        try RoomDatabasePath.prepareDirectory(of: path)
        return path
    }

    static func configuration(_ args: ParsedArguments) throws(UsageError) -> ServerConfiguration {
        var config = ServerConfiguration()
        if let host = args.value("host") { config.host = host }
        config.port = try port(args, "port", default: 8080)
        config.stunPort = try port(args, "stun-port", default: 3478)
        if args.value("public-stun-port") != nil { config.publicSTUNPort = try port(args, "public-stun-port", default: config.stunPort) }
        if config.stunPort == 65535 { throw UsageError(message: "--stun-port must be below 65535: the next port answers STUN too") }
        if let db = args.value("db") { config.databasePath = db }
        switch (args.value("tls-cert"), args.value("tls-key")) {
        case (nil, nil): break
        case let (cert?, key?):
            for file in [cert, key] where access(file, R_OK) != 0 {
                throw UsageError(message: "cannot read '\(file)': \(String(cString: strerror(errno)))")
            }
            config.tlsCertificateFile = cert
            config.tlsKeyFile = key
        default:
            throw UsageError(message: "--tls-cert and --tls-key go together: give both to serve HTTPS and WSS")
        }
        config.turnURLs = args.all("turn-url")
        // Handed out exactly as given, so each must be one clients can use.
        for url in config.turnURLs where !(ICEServerURL(url)?.isSupportedTURN ?? false) {
            throw UsageError(message: "--turn-url takes a TURN URL like turn:HOST:3478?transport=udp (transport udp or tcp) "
                             + "or turns:HOST:443, not '\(url)'")
        }
        if let file = args.value("turn-secret-file") {
            guard let secret = readSecret(file) else {
                throw UsageError(message: "cannot read the TURN secret from '\(file)' (its first line must hold the secret)")
            }
            config.turnSecret = secret
        } else if let secret = ChatCommand.environment("CHATCLI_TURN_SECRET") {
            config.turnSecret = Array(secret.utf8)
        }
        if !config.turnURLs.isEmpty && config.turnSecret == nil {
            throw UsageError(message: "--turn-url needs the shared secret: set CHATCLI_TURN_SECRET or use --turn-secret-file F")
        }
        config.relay = try relaySettings(args, external: !config.turnURLs.isEmpty)
        switch args.value("log-format") {
        case nil, "logfmt": break
        case "json": config.logJSON = true
        case let other?: throw UsageError(message: "--log-format takes logfmt or json, not '\(other)'")
        }
        if let metrics = args.value("metrics-listen") {
            guard SocketAddress(metrics) != nil else {
                throw UsageError(message: "--metrics-listen takes an address and port like 127.0.0.1:9090 or [::1]:9090, not '\(metrics)'")
            }
            config.metricsListen = metrics
        }
        config.turnMembersOnly = args.has("turn-members-only")
        if config.turnMembersOnly && config.turnURLs.isEmpty && config.relay == nil {
            throw UsageError(message: "--turn-members-only restricts TURN credentials, and there is no relay (--no-turn without --turn-url)")
        }
        if let limit = args.value("rate-limit") {
            guard let n = Int(limit), n > 0 else { throw UsageError(message: "--rate-limit takes a positive number, not '\(limit)'") }
            config.missedAcceptsPerMinute = n
        }
        config.clientLimits.roomsPerClientPerHour = try positive(args, "create-limit") ?? config.clientLimits.roomsPerClientPerHour
        config.clientLimits.connectionsPerClient = try positive(args, "connection-limit") ?? config.clientLimits.connectionsPerClient
        config.maxRooms = try positive(args, "max-rooms") ?? config.maxRooms
        config.logAddresses = args.has("log-addresses")
        if let origin = args.value("cors-origin") {
            guard let cors = CORSPolicy(origin: origin) else {
                throw UsageError(message: "--cors-origin takes an origin like https://chat.example.org or http://host:8000 (no path), not '\(origin)'")
            }
            config.cors = cors
        }
        config.trustedProxies = args.all("trusted-proxy")
        for ip in config.trustedProxies where SocketAddress(ip: ip, port: 0) == nil {
            throw UsageError(message: "--trusted-proxy takes the IP address of a load balancer, not '\(ip)'")
        }
        config.redis = try redisSettings(args)
        return config
    }

    /// `--redis URL` with its password from a file or the environment,
    /// never from argv (every local user can read a command line).
    static func redisSettings(_ args: ParsedArguments) throws(UsageError) -> RedisConnection.Settings? {
        guard let text = args.value("redis") else {
            for option in ["redis-password-file", "redis-ca"] where args.value(option) != nil {
                throw UsageError(message: "--\(option) goes with --redis URL")
            }
            return nil
        }
        guard let url = RedisURL(text) else {
            throw UsageError(message: "--redis takes a URL like redis://HOST:6379/0 or rediss://HOST:6380, not '\(text)'")
        }
        if url.password != nil {
            throw UsageError(message: "put the Redis password in CHATCLI_REDIS_PASSWORD or --redis-password-file F, not in the URL (argv is visible to every user)")
        }
        if args.value("db") != nil {
            throw UsageError(message: "--db and --redis are alternatives: rooms live in SQLite or in Redis, not both")
        }
        var password: String?
        if let file = args.value("redis-password-file") {
            guard let secret = readSecret(file) else {
                throw UsageError(message: "cannot read the Redis password from '\(file)' (its first line must hold the password)")
            }
            password = String(decoding: secret, as: UTF8.self)
        } else if let secret = ChatCommand.environment("CHATCLI_REDIS_PASSWORD"), !secret.isEmpty {
            password = secret
        }
        var settings = RedisConnection.Settings(url: url, password: password)
        if let ca = args.value("redis-ca") {
            guard url.tls else { throw UsageError(message: "--redis-ca is for rediss:// (TLS) URLs") }
            guard access(ca, R_OK) == 0 else { throw UsageError(message: "cannot read '\(ca)': \(String(cString: strerror(errno)))") }
            settings.caFile = ca
        }
        return settings
    }

    /// The embedded relay: on unless `--no-turn` or an external `--turn-url`.
    static func relaySettings(_ args: ParsedArguments, external: Bool) throws(UsageError) -> RelaySettings? {
        let relayOptions = ["turn-allow-peer", "turn-relay-ports", "turn-external-ip", "turn-host", "turn-user-quota", "turn-max-allocations"]
        if args.has("no-turn") || external {
            for option in relayOptions where args.value(option) != nil {
                throw UsageError(message: "--\(option) configures the embedded relay, which \(external ? "--turn-url" : "--no-turn") turns off")
            }
            return nil
        }
        var settings = RelaySettings()
        for text in args.all("turn-allow-peer") {
            guard let prefix = cidr(text) else {
                throw UsageError(message: "--turn-allow-peer takes an address block like 10.0.0.0/8 or fd00::/8, not '\(text)'")
            }
            settings.allowedPeers.append(prefix)
        }
        if let text = args.value("turn-relay-ports") {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let low = UInt16(parts[0]), let high = UInt16(parts[1]), low > 0, low <= high else {
                throw UsageError(message: "--turn-relay-ports takes a port range like 49152-65535, not '\(text)'")
            }
            settings.relayPorts = low...high
        }
        for text in args.all("turn-external-ip") {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            let addresses = parts.map { SocketAddress(ip: String($0), port: 0)?.ipBytes }
            guard parts.count <= 2, let `public` = addresses[0], addresses.allSatisfy({ $0 != nil }),
                  let external = TURNExternalAddress(public: `public`, local: parts.count == 2 ? addresses[1] : nil)
            else {
                throw UsageError(message: "--turn-external-ip takes a public address, then optionally /the local one (203.0.113.7/10.0.0.5), not '\(text)'")
            }
            settings.externalAddresses.append(external)
        }
        if let text = args.value("turn-host") {
            guard let host = turnHost(text) else {
                throw UsageError(message: "--turn-host takes a host name or an IP address like relay1.example.com or 203.0.113.7, not '\(text)'")
            }
            settings.advertisedHost = host
        }
        settings.allocationsPerUser = try positive(args, "turn-user-quota") ?? settings.allocationsPerUser
        settings.maxAllocations = try positive(args, "turn-max-allocations") ?? settings.maxAllocations
        return settings
    }

    /// A host for a TURN URL: an IPv6 address in brackets, an IPv4 address
    /// or a DNS name as is; nil for anything else.
    static func turnHost(_ text: String) -> String? {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        if let address = SocketAddress(ip: bare, port: 0) { return address.family == .ipv6 ? "[\(bare)]" : bare }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        let valid = !text.isEmpty && text.utf8.count <= 253 && labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0 | 0x20) }
        }
        return valid ? text : nil
    }

    /// `ADDRESS/LENGTH`; a bare address is a single host.
    static func cidr(_ text: String) -> TURNPeerPolicy.Prefix? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = SocketAddress(ip: String(parts[0]), port: 0) else { return nil }
        let bits = address.ipBytes.count * 8
        guard let length = parts.count == 2 ? Int(parts[1]) : bits else { return nil }
        return TURNPeerPolicy.Prefix(ip: address.ipBytes, length: length)
    }

    /// `--NAME N` with N a positive whole number; nil when not given.
    static func positive(_ args: ParsedArguments, _ name: String) throws(UsageError) -> Int? {
        guard let text = args.value(name) else { return nil }
        guard let n = Int(text), n > 0 else { throw UsageError(message: "--\(name) takes a positive number, not '\(text)'") }
        return n
    }

    static func port(_ args: ParsedArguments, _ name: String, default value: UInt16) throws(UsageError) -> UInt16 {
        guard let text = args.value(name) else { return value }
        guard let port = UInt16(text), port > 0 else {
            throw UsageError(message: "--\(name) takes a port number from 1 to 65535, not '\(text)'")
        }
        return port
    }

    /// The secret file's first line, without the newline.
    static func readSecret(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        while true {
            let c = fgetc(file)
            if c == EOF || c == 0x0A { break }
            bytes.append(UInt8(truncatingIfNeeded: c))
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes.isEmpty ? nil : bytes
    }
}
