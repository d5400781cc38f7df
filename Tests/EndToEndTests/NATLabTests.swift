import Foundation
import TestSupport
import Testing

/// Through the real binary in real network namespaces (`Tools/natlab`): a
/// server on the public segment, `chatcli doctor` behind each NAT kind.
/// Needs root (namespaces, iptables); skipped visibly otherwise.
@Suite(.ownThread, .serialized, .enabled(if: getuid() == 0, "natlab needs root"))
struct NATLabTests {
    @Test(arguments: [
        ("none", "198.18.0.21", "none"),
        ("cone", "198.18.0.1", "endpoint-independent"),
        ("symmetric", "198.18.0.1", "address-and-port-dependent"),
        ("blocked", nil, "udp-blocked"),
    ] as [(String, String?, String)])
    func doctorClassifiesEachNATKind(kind: String, publicIP: String?, nat: String) throws {
        let lab = try NATLab(left: kind)
        let doctor = try lab.exec("left", [Harness.chatcliPath, "doctor", "--server", NATLab.serverURL, "--json"], name: "doctor")
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
