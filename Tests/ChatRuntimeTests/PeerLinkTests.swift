import ChatClient
import ChatRuntime
import Runtime
import Testing

@Suite struct PeerLinkTests {
    /// A socket this machine cannot bind is not the server's fault.
    @Test func aUDPSocketThatCannotBeBoundBlamesThisMachine() throws {
        let loop = try EventLoop()
        #expect(throws: ClientError.localSystem("no local address could be bound for UDP")) {
            _ = try PeerLink(loop: loop, isOfferer: true, interfaces: [], stunServers: [])
        }
    }
}
