import Dispatch
@testable import FileTransfer
import TestSupport

/// Sender and receiver wired back to back; `corrupt` may alter messages in flight.
struct TransferPair {
    let sender: FileSender
    let receiver: FileReceiver
    var corrupt: ((inout [UInt8]) -> Void)?
    var messages = 0
    var senderEvents: [FileSender.Event] = []
    var receiverEvents: [FileReceiver.Event] = []
    /// DATA the receiver left unconsumed (its write queue was full), offered again after the wake.
    var refused: [UInt8]?

    /// Signalled by the sender's reading thread when it has read on (`FileSender.wake`).
    let woken = DispatchSemaphore(value: 0)

    init(source: TransferSource, sink: TransferSink, chunkSize: Int = 1000, readAhead: Bool = false) {
        let woken = woken
        sender = FileSender(source: source, chunkSize: chunkSize, readAhead: readAhead, wake: { woken.signal() })
        receiver = FileReceiver(sink: sink, readAhead: readAhead, wake: { woken.signal() })
    }

    /// Moves messages both ways until nothing moves (or `limit` messages, to
    /// interrupt a transfer part way); the receiver accepts offers.
    mutating func run(limit: Int = .max, accept: Bool = true) {
        sender.start()
        var moved = true
        while moved && messages < limit {
            moved = false
            if let m = refused, receiver.handle(message: m) {
                refused = nil
                moved = true
            }
            while refused == nil, messages < limit, var m = sender.pollMessage() {
                corrupt?(&m)
                messages += 1
                guard receiver.handle(message: m) else {
                    refused = m
                    break
                }
                moved = true
            }
            while let e = receiver.pollEvent() {
                receiverEvents.append(e)
                if case .offer = e { accept ? receiver.accept() : receiver.decline("no thanks") }
            }
            while let m = receiver.pollMessage() {
                sender.handle(message: m)
                moved = true
            }
            while let e = sender.pollEvent() { senderEvents.append(e) }
            // Neither side waits for its disk: it said so, and its thread's wake says when to ask again.
            if !moved && messages < limit && (sender.isWaitingForDisk || receiver.isWaitingForDisk || refused != nil) {
                woken.wait()
                moved = true
            }
        }
    }
}
