import COpenSSL
import CShims
import Wire
#if canImport(Glibc)
import Glibc
#endif

/// The datagrams between OpenSSL and the caller, one array per datagram.
///
/// OpenSSL's DTLS code writes one whole datagram per `BIO_write` (during the
/// handshake it buffers a flight's records and flushes them in MTU-sized
/// datagrams), and reads one datagram per `BIO_read`. A plain memory BIO would
/// glue writes together and lose those boundaries, so this queue keeps them.
final class DatagramQueue {
    private var inbound = Deque<[UInt8]>()
    private var outbound = Deque<[UInt8]>()
    /// OpenSSL's handshake retransmission timer as it last told the BIO
    /// (BIO_CTRL_DGRAM_SET_NEXT_TIMEOUT): whether it runs, and how many
    /// times it was (re)started.
    private(set) var timerRunning = false
    private(set) var timerStarts = 0
    /// Where OpenSSL keeps that deadline (see `DTLSEndpoint.controlsOpenSSLTimer`).
    private var openSSLDeadline: UnsafeMutablePointer<timeval>?

    func pushInbound(_ datagram: [UInt8]) { inbound.append(datagram) }

    /// Copies the next inbound datagram into `buffer` (truncating, as a UDP socket
    /// would, if it is larger); nil when none is waiting.
    func popInbound(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let datagram = inbound.popFirst() else { return nil }
        let n = min(datagram.count, buffer.count)
        datagram.withUnsafeBytes { src in
            if n > 0, let dst = buffer.baseAddress, let s = src.baseAddress { dst.copyMemory(from: s, byteCount: n) }
        }
        return n
    }

    func pushOutbound(_ bytes: UnsafeRawBufferPointer) { outbound.append(Array(bytes)) }

    func popOutbound() -> [UInt8]? { outbound.popFirst() }

    func dropInbound() { inbound.removeAll(keepingCapacity: true) }

    func timerSet(_ deadline: UnsafeMutablePointer<timeval>) {
        timerRunning = deadline.pointee.tv_sec != 0 || deadline.pointee.tv_usec != 0
        if timerRunning { timerStarts += 1 }
        openSSLDeadline = DTLSEndpoint.controlsOpenSSLTimer ? deadline : nil
    }

    /// Makes OpenSSL's timer read as expired, so that `DTLSv1_handle_timeout`
    /// retransmits now (1970 is long past; zero would mean "no timer").
    func expireOpenSSLTimer() {
        guard timerRunning, let openSSLDeadline else { return }
        openSSLDeadline.pointee = timeval(tv_sec: 0, tv_usec: 1)
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
        BIO_meth_set_ctrl(method) { bio, command, _, argument -> Int in
            // OpenSSL reports each start and stop of its retransmission timer.
            if command == BIO_CTRL_DGRAM_SET_NEXT_TIMEOUT, let bio, let argument, let raw = BIO_get_data(bio) {
                let queue = Unmanaged<DatagramQueue>.fromOpaque(raw).takeUnretainedValue()
                queue.timerSet(argument.assumingMemoryBound(to: timeval.self))
            }
            // Flush must succeed (the handshake flushes each flight); everything
            // else, including the MTU queries, answers "unsupported" so OpenSSL
            // uses the MTU we set with SSL_set_mtu / DTLS_set_link_mtu.
            return command == BIO_CTRL_FLUSH ? 1 : 0
        }
        BIO_meth_set_create(method) { bio -> Int32 in
            BIO_set_init(bio, 1)
            return 1
        }
        return method
    }
}
