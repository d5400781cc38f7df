import COpenSSL
import CShims

/// The datagrams between OpenSSL and the caller, one array per datagram.
///
/// OpenSSL's DTLS code writes one whole datagram per `BIO_write` (during the
/// handshake it buffers a flight's records and flushes them in MTU-sized
/// datagrams), and reads one datagram per `BIO_read`. A plain memory BIO would
/// glue writes together and lose those boundaries, so this queue keeps them.
final class DatagramQueue {
    private var inbound: [[UInt8]] = []
    private var inboundHead = 0
    private var outbound: [[UInt8]] = []
    private var outboundHead = 0

    func pushInbound(_ datagram: [UInt8]) { inbound.append(datagram) }

    /// Copies the next inbound datagram into `buffer` (truncating, as a UDP socket
    /// would, if it is larger); nil when none is waiting.
    func popInbound(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard inboundHead < inbound.count else { return nil }
        let datagram = inbound[inboundHead]
        inbound[inboundHead] = []
        inboundHead += 1
        if inboundHead == inbound.count {
            inbound.removeAll(keepingCapacity: true)
            inboundHead = 0
        }
        let n = min(datagram.count, buffer.count)
        datagram.withUnsafeBytes { src in
            if n > 0, let dst = buffer.baseAddress, let s = src.baseAddress { dst.copyMemory(from: s, byteCount: n) }
        }
        return n
    }

    func pushOutbound(_ bytes: UnsafeRawBufferPointer) { outbound.append(Array(bytes)) }

    func popOutbound() -> [UInt8]? {
        guard outboundHead < outbound.count else { return nil }
        let datagram = outbound[outboundHead]
        outbound[outboundHead] = []
        outboundHead += 1
        if outboundHead == outbound.count {
            outbound.removeAll(keepingCapacity: true)
            outboundHead = 0
        }
        return datagram
    }

    func dropInbound() {
        inbound.removeAll()
        inboundHead = 0
    }
}

/// A source/sink `BIO_METHOD` whose data pointer is an unretained `DatagramQueue`.
/// The endpoint owns both the queue and the BIO and frees the BIO first.
enum DatagramBIO {
    static func makeMethod() -> OpaquePointer? {
        guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "chatcli datagram") else { return nil }
        BIO_meth_set_write(method) { bio, data, length -> Int32 in
            guard let bio, let data, length >= 0, let raw = BIO_get_data(bio) else { return -1 }
            let queue = Unmanaged<DatagramQueue>.fromOpaque(raw).takeUnretainedValue()
            cshims_BIO_clear_retry_flags(bio)
            queue.pushOutbound(UnsafeRawBufferPointer(start: data, count: Int(length)))
            return length
        }
        BIO_meth_set_read(method) { bio, out, length -> Int32 in
            guard let bio, let out, length > 0, let raw = BIO_get_data(bio) else { return -1 }
            let queue = Unmanaged<DatagramQueue>.fromOpaque(raw).takeUnretainedValue()
            cshims_BIO_clear_retry_flags(bio)
            guard let n = queue.popInbound(into: UnsafeMutableRawBufferPointer(start: out, count: Int(length))) else {
                cshims_BIO_set_retry_read(bio)  // "no datagram yet", not EOF
                return -1
            }
            return Int32(n)
        }
        BIO_meth_set_ctrl(method) { _, command, _, _ -> Int in
            // Flush must succeed (the handshake flushes each flight); everything
            // else, including the MTU queries, answers "unsupported" so OpenSSL
            // uses the MTU we set with SSL_set_mtu / DTLS_set_link_mtu.
            command == BIO_CTRL_FLUSH ? 1 : 0
        }
        BIO_meth_set_create(method) { bio -> Int32 in
            BIO_set_init(bio, 1)
            return 1
        }
        return method
    }
}
