import Foundation
import Testing

/// Through the real binary in real network namespaces (`Tools/natlab`): a
/// server on the public segment, `chatcli doctor` behind each NAT kind.
/// Needs root (namespaces, iptables); skipped visibly otherwise.
@Suite(.serialized, .enabled(if: getuid() == 0, "natlab needs root"))
struct NATLabTests {
    static let natlab = Harness.packageRoot + "/Tools/natlab"
    static let serverIP = "198.18.0.10"

    final class Lab {
        let prefix: String
        var server: ChildProcess?

        init(left: String, right: String = "none", extra: [String] = []) throws {
            prefix = "cc\(left.prefix(3))\(getpid() % 10000)"
            let up = try ChildProcess(NATLabTests.natlab, ["up", "--prefix", prefix, "--left", left, "--right", right] + extra, name: "natlab up")
            guard up.waitForExit(timeout: 60) == 0 else { throw LabError.up(up.transcript) }
            let db = Harness.temporaryDirectory() + "/rooms.db"
            let server = try exec("pub", [Harness.chatcliPath, "serve", "--port", "8080", "--stun-port", "3478", "--db", db], name: "server")
            guard server.waitForLine(stderr: true, timeout: 15, { $0.contains("listening") }) != nil else { throw LabError.up(server.transcript) }
            self.server = server
        }

        func exec(_ host: String, _ command: [String], name: String) throws -> ChildProcess {
            try ChildProcess(NATLabTests.natlab, ["exec", "--prefix", prefix, host, "--"] + command, name: name)
        }

        deinit {
            server?.stop()
            if let down = try? ChildProcess(NATLabTests.natlab, ["down", "--prefix", prefix], name: "natlab down") {
                _ = down.waitForExit(timeout: 60)
            }
        }
    }

    enum LabError: Error { case up(String) }

    @Test(arguments: [
        ("none", "198.18.0.21", "none"),
        ("cone", "198.18.0.1", "endpoint-independent"),
        ("symmetric", "198.18.0.1", "address-and-port-dependent"),
        ("blocked", nil, "udp-blocked"),
    ] as [(String, String?, String)])
    func doctorClassifiesEachNATKind(kind: String, publicIP: String?, nat: String) throws {
        let lab = try Lab(left: kind)
        let doctor = try lab.exec("left", [Harness.chatcliPath, "doctor", "--server", "http://\(Self.serverIP):8080", "--json"], name: "doctor")
        #expect(doctor.waitForExit(timeout: 30) == 0, "\(doctor.transcript)")
        let line = try #require(doctor.stdout.first, "\(doctor.transcript)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(report["nat"] as? String == nat, "\(line)")
        #expect(report["reachable"] as? Bool == true, "\(line)")
        if let publicIP {
            let srflx = try #require(report["srflx"] as? String, "\(line)")
            #expect(srflx.hasPrefix(publicIP + ":"), "\(line)")
        } else {
            #expect(report["srflx"] is NSNull, "\(line)")
        }
    }
}
