import Foundation
import STUN
import TestSupport
import Testing

/// The server as independent clients see it: a Python client written only
/// from WireProtocol.md (plain HTTP and the `websockets` package), and raw STUN.
@Suite(.ownThread) struct IndependentClientTests {
    @Test func pythonClientExercisesTheWholeAPI() throws {
        let server = try ServerProcess()
        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/signaling_api_check.py"
        let python = try ChildProcess(Harness.pythonPath, [script, server.url, "\(server.stunPort)"], name: "python")
        let status = python.waitForExit(timeout: 120)
        #expect(status == 0, "\(python.transcript)\n\(server.process.transcript)")
        #expect(python.stdout.last?.hasSuffix("checks passed") == true, "\(python.transcript)")
    }

    @Test func stunRespondersAnswerOnBothPortsAndNameEachOther() throws {
        let server = try ServerProcess()
        for (port, other) in [(server.stunPort, server.stunPort + 1), (server.stunPort + 1, server.stunPort)] {
            var rng = SystemRandomNumberGenerator()
            let id = STUNTransactionID.random(using: &rng)
            let request = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request), transactionID: id, attributes: [])
            let reply = try #require(UDPExchange.send(request.encoded(fingerprint: true), to: port))
            let message = try STUNMessage.decode(reply.bytes)
            #expect(message.transactionID == id)
            #expect(message.type == STUNMessageType(method: .binding, messageClass: .successResponse))
            #expect(STUNMessage.verifyFingerprint(of: reply.bytes) == .valid)
            let mapped = try #require(message.xorMappedAddress)
            #expect(mapped.description == "127.0.0.1:\(reply.localPort)")
            #expect(message.otherAddress?.port == other)
        }
    }

    @Test func stunGarbageIsIgnoredAndServiceContinues() throws {
        let server = try ServerProcess()
        _ = UDPExchange.send(Array(repeating: 0xFF, count: 64), to: server.stunPort, timeout: 0.3)
        _ = UDPExchange.send([0, 1, 0, 0], to: server.stunPort, timeout: 0.3)
        var rng = SystemRandomNumberGenerator()
        let request = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request), transactionID: .random(using: &rng), attributes: [])
        #expect(UDPExchange.send(request.encoded(), to: server.stunPort) != nil)
    }
}

/// One UDP request/response on 127.0.0.1 with a timeout.
enum UDPExchange {
    static func send(_ bytes: [UInt8], to port: UInt16, timeout: Double = 3) -> (bytes: [UInt8], localPort: UInt16)? {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        let sent = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard sent == bytes.count else { return nil }
        var buffer = [UInt8](repeating: 0, count: 2048)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        var local = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (Array(buffer[0..<n]), UInt16(bigEndian: local.sin_port))
    }
}
