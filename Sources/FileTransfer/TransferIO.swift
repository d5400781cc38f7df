/// A problem a user can act on, as one sentence (disk full, permission
/// denied, a refused name, a protocol violation by the peer).
public struct TransferError: Error, Equatable, Sendable, CustomStringConvertible {
    /// For the local user: it may name paths on this machine.
    public let message: String
    /// The same cause for the peer, in the abort it is sent: nothing private
    /// to this machine (no absolute path, no folder the peer did not name),
    /// only names from the transfer itself.
    public let peerMessage: String

    /// `peer`: the sentence for the peer, when `message` names local paths.
    public init(_ message: String, peer: String? = nil) {
        self.message = message
        peerMessage = peer ?? message
    }

    public var description: String { message }
}

/// Where a sender's bytes come from: the entries in order (each folder
/// before what it holds) and their contents. `DiskSource` reads files and
/// folders, `StreamSource` stdin; the tests use memory.
public protocol TransferSource: AnyObject {
    var offer: TransferOffer { get }
    var entries: [TransferEntry] { get }
    /// False for a pipe: a resume offset is then ignored and data starts at 0.
    var canSeek: Bool { get }
    /// Reads up to `buffer.count` bytes of entry `index` from `offset`; 0 at its end.
    func read(entry index: Int, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int
}

/// Where a receiver's bytes go. One file is open at a time; partial data
/// stays on disk (`NAME.part`) when the transfer stops, for a later resume.
public protocol TransferSink: AnyObject {
    /// Why `offer` cannot be taken at all (more bytes than the free space),
    /// checked when it arrives so it is declined before anyone accepts it;
    /// nil when it may be.
    func refusal(of offer: TransferOffer) -> TransferError?
    /// Prepares the target for `offer`, whose name is already sanitized.
    func begin(_ offer: TransferOffer, name: SafePath) throws(TransferError)
    /// A folder inside the offered folder.
    func makeFolder(_ path: SafePath, mode: UInt16) throws(TransferError)
    /// Opens (creating if needed) the partial file for `path`; the length already there.
    func openFile(_ path: SafePath, size: UInt64) throws(TransferError) -> UInt64
    /// Reads bytes already in the open file (to prove its prefix).
    func readExisting(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int
    func truncate(to length: UInt64) throws(TransferError)
    func write(_ bytes: ArraySlice<UInt8>) throws(TransferError)
    /// Writes `bytes` and feeds them to `hasher`, in order. A sink may do
    /// both later, on a thread of its own (`WriteBehindSink`): `hasher` is
    /// then only read after `flush()`.
    func write(_ bytes: ArraySlice<UInt8>, hashingInto hasher: SHA256) throws(TransferError)
    /// Returns once every write so far is done (and hashed); a write's failure is thrown here at the latest.
    func flush() throws(TransferError)
    /// Whether every write so far is done (and hashed), without waiting for it: if not, `wake` is called from
    /// another thread once they are (`WriteBehindSink`); a write's failure is thrown.
    func flushed(orWake wake: @escaping @Sendable () -> Void) throws(TransferError) -> Bool
    /// Whether a write now would be taken without waiting, without waiting
    /// for it: if not (`WriteBehindSink`'s queue is full), `wake` is called
    /// from another thread once there is room again. A caller that cannot be
    /// woken just writes, and the write waits as a slow disk's would.
    func hasRoom(orWake wake: @escaping @Sendable () -> Void) -> Bool
    /// Closes the open file: kept with `mode` when `verified`, else removed.
    func closeFile(mode: UInt16, verified: Bool) throws(TransferError)
    /// Everything arrived: moves it into place; where it ended up.
    func finish() throws(TransferError) -> String
    /// The transfer stopped early: close what is open, keep partial data.
    func abandon()
}

extension TransferSink {
    public func refusal(of offer: TransferOffer) -> TransferError? { nil }

    public func write(_ bytes: ArraySlice<UInt8>, hashingInto hasher: SHA256) throws(TransferError) {
        try write(bytes)
        hasher.update(bytes)
    }

    public func flush() throws(TransferError) {}

    public func flushed(orWake wake: @escaping @Sendable () -> Void) throws(TransferError) -> Bool {
        try flush()
        return true
    }

    public func hasRoom(orWake wake: @escaping @Sendable () -> Void) -> Bool { true }
}
