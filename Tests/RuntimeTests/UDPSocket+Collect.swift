import Testing
import TestSupport
@testable import Runtime

extension UDPSocket {
    /// A loop and two sockets on 127.0.0.1 (close both when done).
    static func loopbackPair() throws -> (EventLoop, UDPSocket, UDPSocket) {
        let loop = try EventLoop()
        let sender = try UDPSocket(loop: loop, bind: try Fixture.address("127.0.0.1:0"))
        let receiver = try UDPSocket(loop: loop, bind: try Fixture.address("127.0.0.1:0"))
        return (loop, sender, receiver)
    }

    /// Runs `loop` until `socket` has received `expected` datagrams (10 s at
    /// most) and returns them in arrival order.
    static func collect(_ expected: Int, on socket: UDPSocket, loop: EventLoop) -> [[UInt8]] {
        var received: [[UInt8]] = []
        socket.onDatagram = { bytes, _ in
            received.append(bytes)
            if received.count == expected { loop.stop() }
        }
        #expect(loop.run(timeout: .seconds(10)))
        return received
    }
}
