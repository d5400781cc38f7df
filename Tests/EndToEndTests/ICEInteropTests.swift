import ChatClient
import Foundation
import ICE
import Runtime
import TestSupport
import Testing

/// Our ICE agent on real UDP sockets against aioice (an independent
/// implementation), in both roles, exchanging candidates as SDP strings.
@Suite(.ownThread) struct ICEInteropTests {
    @Test(arguments: [ICERole.controlling, .controlled])
    func connectsWithAioice(ourRole: ICERole) throws {
        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/aioice_peer.py"
        let peer = try ChildProcess(Harness.pythonPath, [script, ourRole == .controlling ? "controlled" : "controlling"], name: "aioice")
        let offerLine = try #require(peer.waitForLine(timeout: 20) { $0.contains("\"ufrag\"") }, "\(peer.transcript)")
        let offer = try #require(try JSONSerialization.jsonObject(with: Data(offerLine.utf8)) as? [String: Any])

        let loop = try EventLoop()
        var rng = SystemRandomNumberGenerator()
        let credentials = ICECredentials.random(using: &rng)
        let interfaces = NetworkInterfaces.addresses().filter { $0.family == .ipv4 }
        let transport = try ICETransport(loop: loop, role: ourRole, credentials: credentials, interfaces: interfaces, stunServers: [])
        var ours: [String] = []
        var gathered = false
        var connected: ICEPair?
        var received: [String] = []
        var failure: String?
        transport.onEvent = { event in
            switch event {
            case .localCandidate(let c): ours.append(c.sdpAttribute)
            case .gatheringComplete: gathered = true
            case .selectedPairChanged(let pair): connected = pair
            case .stateChanged(.failed(let reason)): failure = reason.description
            default: break
            }
        }
        transport.onPacket = { bytes, _ in received.append(String(decoding: bytes, as: UTF8.self)) }
        transport.setRemoteCredentials(ufrag: offer["ufrag"] as? String ?? "", pwd: offer["pwd"] as? String ?? "")
        for case let c as String in offer["candidates"] as? [Any] ?? [] {
            if let candidate = ICECandidate(sdpAttribute: c) { transport.addRemoteCandidate(candidate) }
        }
        transport.remoteEndOfCandidates()
        transport.start()

        var sentAnswer = false, sentHello = false, askedPeer = false
        let deadline = loop.now + .seconds(25)
        func step() {
            if gathered && !sentAnswer {
                sentAnswer = true
                let answer: [String: Any] = ["ufrag": credentials.ufrag, "pwd": credentials.pwd, "candidates": ours]
                let data = (try? JSONSerialization.data(withJSONObject: answer)) ?? Data()
                peer.write(String(decoding: data, as: UTF8.self) + "\n")
            }
            if connected != nil && !sentHello { sentHello = transport.send(Array("hello from chatcli".utf8)) }
            if !askedPeer, peer.stdout.contains(where: { $0.contains("\"connected\"") }) {
                askedPeer = true
                peer.write(#"{"send": "hello from aioice"}"# + "\n")
            }
            let peerGotIt = peer.stdout.contains { $0.contains("hello from chatcli") }
            if (peerGotIt && received.contains("hello from aioice")) || failure != nil || loop.now > deadline
                || peer.stdout.contains(where: { $0.contains("\"error\"") }) {
                loop.stop()
                return
            }
            loop.schedule(after: .milliseconds(10)) { step() }
        }
        step()
        loop.run()
        transport.close()
        peer.closeInput()
        _ = peer.waitForExit(timeout: 5)

        #expect(failure == nil, "\(failure ?? "")")
        let pair = try #require(connected, "never connected\n\(peer.transcript)")
        #expect(pair.local.type == .host && pair.remote.type == .host)
        #expect(received.contains("hello from aioice"), "\(peer.transcript)")
        #expect(peer.stdout.contains { $0.contains("hello from chatcli") }, "\(peer.transcript)")
    }
}
