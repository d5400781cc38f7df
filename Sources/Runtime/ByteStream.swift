/// A reliable, ordered byte stream driven by an ``EventLoop``: a
/// ``TCPConnection`` or a ``TLSStream`` on top of one.
///
/// Contract, shared by every implementation:
/// - `onData` receives each chunk as it arrives (never empty).
/// - `onClose` is called exactly once, on a later loop turn, whether the
///   peer closed (`nil`), an error happened (the error), or the owner called
///   ``close()``/``abort()`` (`nil`). After it, no callback is ever called,
///   and both callbacks are released (breaking reference cycles).
/// - ``write(_:)`` never blocks; what the kernel does not take at once is
///   buffered (see ``bufferedAmount``). Writes after close are ignored.
/// - The buffer has a cap (``TCPConnection/outputLimit``): a write that
///   would take it past the cap closes the stream with an error instead,
///   so a peer that never reads costs bounded memory. An owner that
///   produces a lot watches ``bufferedAmount``, stops producing (and
///   reading, ``isReadingPaused``) when it is high, and resumes on
///   `onDrain`, long before the cap.
public protocol ByteStream: AnyObject {
    var onData: (([UInt8]) -> Void)? { get set }
    var onClose: ((RuntimeError?) -> Void)? { get set }
    /// Called when buffered output has all been handed to the kernel
    /// (``bufferedAmount`` back to 0 after it was above), while open.
    var onDrain: (() -> Void)? { get set }
    /// While true nothing is read: the peer's further bytes wait in the
    /// kernel, and TCP flow control slows it down.
    var isReadingPaused: Bool { get set }
    /// Queues `bytes` for sending.
    func write(_ bytes: [UInt8])
    /// Closes after everything already written has been sent.
    func close()
    /// Closes now, dropping unsent data.
    func abort()
    /// Bytes written but not yet handed to the kernel.
    var bufferedAmount: Int { get }
    /// False once closing has started.
    var isOpen: Bool { get }
}
