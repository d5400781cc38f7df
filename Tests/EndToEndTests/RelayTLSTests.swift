import Foundation
import Testing
import TestSupport

/// TURN over TLS (`turns:`, RFC 8656 §3.1) against a real coturn whose
/// certificate comes from a throwaway CA: for networks that pass nothing
/// but TLS. `--ca-file` trusts the CA; without it the certificate is
/// refused, and said so.
@Suite(.ownThread, .serialized, .enabled(if: Coturn.isInstalled, "coturn's turnserver is not installed (Tools/test installs it)"))
struct RelayTLSTests {
    static func server(_ coturn: Coturn) throws -> ServerProcess {
        let port = try #require(coturn.tlsPort)
        return try ServerProcess(arguments: ["--turn-url", "turns:127.0.0.1:\(port)"], environment: ["CHATCLI_TURN_SECRET": coturn.secret])
    }

    @Test func relayOnlyPeersChatThroughTURNOverTLS() throws {
        let coturn = try Coturn(tls: true)
        defer { coturn.stop() }
        let ca = try #require(coturn.certificates?.caFile)
        let server = try Self.server(coturn)
        let options = ["--relay-only", "--ca-file", ca]
        let (alice, bob) = try RelayTests.startChat(server, alice: options, bob: options)
        let fromAlice = ChatTests.messages("a"), fromBob = ChatTests.messages("b")
        _ = try RelayTests.connectThroughTheRelay(alice, bob, coturn, fromAlice: fromAlice, fromBob: fromBob)
        ChatTests().expectExchangeAndLeave(alice, bob, fromAlice: fromAlice, fromBob: fromBob)
    }

    /// Without `--ca-file` the relay's certificate is refused: no relayed
    /// candidate, and the failure says why.
    @Test func anUntrustedRelayCertificateFailsTheChatClearly() throws {
        let coturn = try Coturn(tls: true)
        defer { coturn.stop() }
        let server = try Self.server(coturn)
        let (alice, bob) = try RelayTests.startChat(server, alice: ["--relay-only"])
        let error = try #require(alice.waitForEvent("error", timeout: 30), "\(alice.transcript)\n\(bob.transcript)")
        #expect((error["message"] as? String)?.contains("certificate") == true, "\(error)")
        #expect(alice.waitForExit(timeout: 20) == 1)
    }

    @Test func doctorChecksTURNOverTLSAndNamesAnUntrustedCertificate() throws {
        let coturn = try Coturn(tls: true)
        defer { coturn.stop() }
        let ca = try #require(coturn.certificates?.caFile)
        let server = try Self.server(coturn)
        let trusted = try #require(try DoctorTURNTests.doctor(server, ["--ca-file", ca])["turn"] as? [[String: Any]])
        #expect(trusted.count == 1)
        #expect((trusted.first?["relayed"] as? String)?.hasPrefix("127.0.0.1:") == true, "\(trusted)")
        #expect(trusted.first?["error"] is NSNull, "\(trusted)")

        let untrusted = try #require(try DoctorTURNTests.doctor(server)["turn"] as? [[String: Any]])
        let error = untrusted.first?["error"] as? String ?? ""
        #expect(error.contains("certificate"), "\(untrusted)")
        #expect(untrusted.first?["relayed"] is NSNull)
    }
}
