import ChatClient
@testable import ChatRuntime
import Runtime
import Testing

/// The signaling socket across a network change (the runtime side of
/// roaming): a client whose attempts all failed on the old network (a link
/// down) and that is waiting out its reconnect backoff tries again the
/// moment the network changes, not when the backoff ends.
@Suite struct SignalingReconnectTests {
    @Test func aClientWaitingOutItsBackoffTriesAgainAtOnceWhenTheNetworkChanges() throws {
        let loop = try EventLoop()
        // Port 1 on loopback: nothing listens, every attempt is refused at once.
        let connector = try Connector(loop: loop, server: #require(ServerURL("http://127.0.0.1:1")), caFile: nil)
        let client = SignalingClient(connector: connector)
        // A long backoff: the retry it schedules is almost surely seconds away.
        client.backoff = Backoff(base: .seconds(120), cap: .seconds(120))
        var lost: [(at: Duration, retryIn: Duration)] = []
        client.onEvent = { event in
            guard case .lost(_, let retryIn) = event else { return }
            lost.append((loop.now.duration, retryIn))
            if lost.count == 1 {
                _ = loop.schedule(after: .milliseconds(50)) { client.networkChanged(addresses: []) }
            } else {
                loop.stop()
            }
        }
        _ = loop.schedule(after: .seconds(5)) { loop.stop() }
        client.start()
        loop.run()
        client.stop()
        try #require(lost.count == 2, "one attempt only: the next waits \(lost.first?.retryIn ?? .zero) of backoff")
        #expect(lost[1].at - lost[0].at < .seconds(1), "the second attempt came \(lost[1].at - lost[0].at) after the first")
    }
}
