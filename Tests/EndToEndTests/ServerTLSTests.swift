import Foundation
import Testing
import TestSupport

/// `chatcli serve --tls-cert/--tls-key` serves HTTPS and WSS itself; clients
/// verify it against a CA (here the test's own, via --ca-file).
@Suite(.ownThread) struct ServerTLSTests {
    @Test func clientsPairOverHTTPSAndWSS() throws {
        let dir = try TemporaryDirectory()
        let certs = try TestCertificates.make(in: dir.path)
        let server = try ServerProcess(arguments: ["--tls-cert", certs.certFile, "--tls-key", certs.keyFile])
        let url = "https://localhost:\(server.port)"
        let alice = try ChildProcess.chatcli(["create", "--server", url, "--ca-file", certs.caFile, "--json"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", url, "--ca-file", certs.caFile, "--json"], name: "bob")
        #expect(bob.waitForEvent("peer_joined") != nil, "\(bob.transcript)")
        #expect(alice.waitForEvent("peer_joined") != nil, "\(alice.transcript)")
        alice.closeInput(); bob.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript)")
        #expect(bob.waitForExit() == 0, "\(bob.transcript)")
    }

    @Test func untrustedCertificateIsOneClearSentence() throws {
        let dir = try TemporaryDirectory()
        let certs = try TestCertificates.make(in: dir.path)
        let server = try ServerProcess(arguments: ["--tls-cert", certs.certFile, "--tls-key", certs.keyFile])
        let p = try ChildProcess.chatcli(["join", "123456", "--server", "https://localhost:\(server.port)"], name: "bob")
        p.closeInput()
        #expect(p.waitForExit() == 1, "\(p.transcript)")
        #expect(p.stderr.count == 1 && p.stderr[0].contains("Secure connection") && p.stderr[0].contains("certificate"), "\(p.transcript)")
        // The server logs the failed handshake and keeps serving.
        let again = try ChildProcess.chatcli(["join", "000000", "--server", "https://localhost:\(server.port)", "--ca-file", certs.caFile], name: "carol")
        again.closeInput()
        #expect(again.waitForExit() == 1, "\(again.transcript)")
        #expect(again.stderr.joined().contains("No chat is waiting"), "\(again.transcript)")
    }

    @Test func plainHTTPClientToATLSServerFailsCleanly() throws {
        let dir = try TemporaryDirectory()
        let certs = try TestCertificates.make(in: dir.path)
        let server = try ServerProcess(arguments: ["--tls-cert", certs.certFile, "--tls-key", certs.keyFile])
        let p = try ChildProcess.chatcli(["join", "123456", "--server", "http://127.0.0.1:\(server.port)"], name: "bob")
        p.closeInput()
        #expect(p.waitForExit(timeout: 30) == 1, "\(p.transcript)")
        #expect(p.stderr.count == 1, "\(p.transcript)")
    }
}
