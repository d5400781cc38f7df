import Foundation
import Testing
import TestSupport

/// A real `redis-server` (Debian) on a free loopback port, with its own
/// directory and append-only file, ended by its PID.
final class RedisProcess {
    static let executable = "/usr/bin/redis-server"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    let port: UInt16
    let directory: String
    /// With TLS: the certificate for 127.0.0.1 and its CA (clients verify it).
    let certificates: TestCertificates?
    let password: String?
    private(set) var process: ChildProcess
    var url: String { "\(certificates == nil ? "redis" : "rediss")://127.0.0.1:\(port)" }

    init(tls: Bool = false, password: String? = nil) throws {
        port = Harness.freePort()
        directory = Harness.temporaryDirectory()
        certificates = tls ? try TestCertificates.make(in: directory) : nil
        self.password = password
        process = try Self.launch(port: port, directory: directory, certificates: certificates, password: password)
        try waitUntilReady()
    }

    /// `appendfsync always`: a SIGKILL loses nothing Redis acknowledged,
    /// so a restart shows what the cluster does, not what Redis lost.
    private static func launch(port: UInt16, directory: String, certificates: TestCertificates?, password: String?) throws -> ChildProcess {
        var arguments = [
            "--bind", "127.0.0.1", "--dir", directory, "--save", "",
            "--appendonly", "yes", "--appendfsync", "always", "--protected-mode", "no",
        ]
        if let certificates {
            arguments += ["--port", "0", "--tls-port", "\(port)", "--tls-cert-file", certificates.certFile,
                          "--tls-key-file", certificates.keyFile, "--tls-ca-cert-file", certificates.caFile, "--tls-auth-clients", "no"]
        } else {
            arguments += ["--port", "\(port)"]
        }
        if let password { arguments += ["--requirepass", password] }
        return try ChildProcess(executable, arguments, name: "redis")
    }

    private func waitUntileReadyLine() -> Bool {
        process.waitForLine(timeout: 15) { $0.contains("Ready to accept connections") } != nil
    }

    private func waitUntilReady() throws {
        guard waitUntileReadyLine() else { throw HarnessError.serverDidNotStart(process.transcript) }
    }

    /// SIGKILL: Redis gone without a goodbye.
    func kill() {
        process.signal(SIGKILL)
        _ = process.waitForExit()
    }

    func start() throws {
        process = try Self.launch(port: port, directory: directory, certificates: certificates, password: password)
        try waitUntilReady()
    }

    /// `redis-cli` against this server; its stdout lines.
    func cli(_ arguments: String...) -> [String] {
        guard let child = try? ChildProcess("/usr/bin/redis-cli", ["-p", "\(port)"] + arguments, name: "redis-cli") else { return [] }
        _ = child.waitForExit()
        return child.stdout
    }

    deinit { process.signal(SIGKILL) }
}

/// `chatcli serve --redis` instances sharing one Redis, behind a real
/// HAProxy (round robin, no stickiness, health checks on /healthz).
final class ClusterFixture {
    let redis: RedisProcess
    private(set) var instances: [ClusterInstance] = []
    let haproxy: ChildProcess?
    let haproxyPort: UInt16
    var url: String { "http://127.0.0.1:\(haproxyPort)" }

    /// `hosts`: each instance's own loopback address (default all 127.0.0.1;
    /// HAProxy listens on 127.0.0.1), given to it with `--host` and `--turn-host`.
    init(instances count: Int = 3, haproxy withHAProxy: Bool = true, extra: [String] = [], redis: RedisProcess? = nil, hosts: [String]? = nil) throws {
        let redis = try redis ?? RedisProcess()
        self.redis = redis
        var extra = ["--trusted-proxy", "127.0.0.1"] + extra
        if let certificates = redis.certificates { extra += ["--redis-ca", certificates.caFile] }
        let environment = redis.password.map { ["CHATCLI_REDIS_PASSWORD": $0] } ?? [:]
        for index in 0..<count {
            let own = hosts.map { ["--turn-host", $0[index]] } ?? []
            instances.append(try ClusterInstance(redis: redis.url, extra: extra + own, environment: environment, host: hosts?[index] ?? "127.0.0.1"))
        }
        haproxyPort = Harness.freePort()
        if withHAProxy {
            let directory = Harness.temporaryDirectory()
            let config = directory + "/haproxy.cfg"
            try Self.config(port: haproxyPort, servers: instances.map(\.port), hosts: instances.map(\.host))
                .write(toFile: config, atomically: true, encoding: .utf8)
            let proxy = try ChildProcess("/usr/sbin/haproxy", ["-db", "-f", config], name: "haproxy")
            haproxy = proxy
            try Self.waitForListening(haproxyPort, proxy)
        } else {
            haproxy = nil
        }
    }

    /// The README's example, on test ports.
    static func config(port: UInt16, servers: [UInt16], hosts: [String]? = nil) -> String {
        """
        global
            maxconn 4096
        defaults
            mode http
            timeout connect 2s
            timeout client 60s
            timeout server 60s
            timeout tunnel 1h
            option redispatch
            option forwardfor
            retries 2
        frontend chatcli
            bind 127.0.0.1:\(port)
            default_backend instances
        backend instances
            balance roundrobin
            option httpchk GET /healthz
            http-check expect status 200
            default-server inter 500ms fall 2 rise 1
        \(servers.enumerated().map { "    server s\($0.offset) \(hosts?[$0.offset] ?? "127.0.0.1"):\($0.element) check" }.joined(separator: "\n"))

        """
    }

    private static func waitForListening(_ port: UInt16, _ process: ChildProcess) throws {
        for _ in 0..<150 {
            if Harness.withLoopback(port: port, { address, length in
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(fd) }
                return connect(fd, address, length)
            }) == 0 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HarnessError.serverDidNotStart(process.transcript)
    }

    var transcripts: String {
        instances.map { $0.process.transcript.suffix(3000) }.joined(separator: "\n----\n")
    }

    deinit { haproxy?.signal(SIGKILL) }
}

/// One `chatcli serve --redis` instance.
final class ClusterInstance {
    let host: String
    let port: UInt16
    let stunPort: UInt16
    private(set) var process: ChildProcess
    /// This run's instance id, from the `listening` log line.
    private(set) var instanceID = ""
    var url: String { "http://\(host):\(port)" }

    init(redis: String, extra: [String] = [], environment: [String: String] = [:], waitFor event: String = "event=redis_up",
         host: String = "127.0.0.1") throws {
        self.host = host
        port = Harness.freePort()
        stunPort = Harness.freePort(udpPair: true)
        process = try ChildProcess.chatcli(
            ["serve", "--host", host, "--port", "\(port)", "--stun-port", "\(stunPort)", "--redis", redis] + extra,
            name: "instance", environment: environment)
        guard process.waitForLine(stderr: true, timeout: 15, { $0.contains(event) }) != nil,
              let line = process.waitForLine(stderr: true, timeout: 1, { $0.contains("instance=") }) else {
            throw HarnessError.serverDidNotStart(process.transcript)
        }
        instanceID = line.components(separatedBy: "instance=").last?.components(separatedBy: " ").first ?? ""
    }

    func kill() {
        process.signal(SIGKILL)
        _ = process.waitForExit()
    }

    /// WebSockets this instance holds open now (from its log).
    var openWebSockets: Int {
        let lines = process.stderr
        return lines.filter { $0.contains("event=ws_open") }.count - lines.filter { $0.contains("event=ws_close") }.count
    }

    deinit { process.stop() }
}
