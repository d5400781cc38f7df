import Testing
@testable import Runtime

extension UDPSocket {
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
