import ChatClient
import FileTransfer
import MDNS
import PAKE
import Redis
@_spi(Fuzzing) import SessionStore
import Wire

/// Decoders for what the peer sends inside the encrypted channels, what the
/// local network multicasts, what Redis answers and what is read from disk.
extension FuzzTarget {
    static let applicationTargets: [FuzzTarget] = [
        FuzzTarget(name: "dns", summary: "DNS/mDNS messages with name compression (RFC 1035, RFC 6762)", run: dns),
        FuzzTarget(name: "resp", summary: "RESP replies from Redis (RESP2/RESP3)", run: resp),
        FuzzTarget(name: "file-transfer", summary: "file-transfer messages and the paths and names they carry", run: fileTransfer),
        FuzzTarget(name: "pake", summary: "PAKE messages and the CPace handshake fed with them", run: pake),
        FuzzTarget(name: "ctl", summary: "`ctl` channel messages", run: control),
        FuzzTarget(name: "session-store", summary: "the session-store file header and its decrypted contents", run: sessionStore),
    ]

    @Sendable static func dns(_ data: [UInt8]) {
        guard let message = try? DNSMessage(decoding: data) else { return }
        for record in message.answers + message.additionals {
            if case .txt(let strings) = record.data { _ = ServiceInstance.parseTXT(strings) }
        }
        FuzzCheck.expect((try? DNSMessage(decoding: message.encoded())) == message, "a decoded DNS message re-encodes to itself")
    }

    private static func replies(_ pieces: [ArraySlice<UInt8>]) -> ([RESPValue], Bool) {
        var decoder = RESPDecoder()
        var values: [RESPValue] = []
        for piece in pieces {
            decoder.feed(Array(piece))
            do {
                while let value = try decoder.next() { values.append(value) }
            } catch {
                return (values, true)
            }
        }
        return (values, false)
    }

    @Sendable static func resp(_ data: [UInt8]) {
        let input = StreamInput(data)
        let (cut, cutFailed) = replies(input.pieces)
        let (whole, wholeFailed) = replies([input.stream])
        FuzzCheck.expect(cut == whole && cutFailed == wholeFailed, "RESP replies do not depend on how the stream is cut")
    }

    @Sendable static func fileTransfer(_ data: [UInt8]) {
        guard let message = TransferMessage.decode(data) else { return }
        FuzzCheck.expect(TransferMessage.decode(message.encode()) == message, "a file-transfer message round trips")
        switch message {
        case .offer(let offer): checkSafe(try? SafePath(name: offer.name))
        case .entry(let entry): checkSafe(try? SafePath(relative: entry.path))
        default: break
        }
    }

    /// A path the receiver accepted can only name something inside its folder.
    private static func checkSafe(_ path: SafePath?) {
        guard let path else { return }
        FuzzCheck.expect(!path.components.isEmpty, "an accepted path has a component")
        for component in path.components {
            let bytes = Array(component.utf8)
            FuzzCheck.expect(!bytes.isEmpty && bytes != [0x2E] && bytes != [0x2E, 0x2E], "no empty, . or .. component")
            FuzzCheck.expect(!bytes.contains(0x2F) && !bytes.contains(0) && !bytes.contains(0x5C), "no separator or NUL in a component")
        }
    }

    @Sendable static func pake(_ data: [UInt8]) {
        var random = SplitMix64(seed: 24)
        let binding = PAKEBinding(roomID: "fuzz", offererFingerprint: Array(repeating: 1, count: 32), answererFingerprint: Array(repeating: 2, count: 32))
        let initiator = PAKEHandshake(role: .initiator, prs: Array("123456".utf8), binding: binding, random: &random)
        let responder = PAKEHandshake(role: .responder, prs: Array("123456".utf8), binding: binding, random: &random)
        _ = initiator.start()
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true).prefix(8) {
            guard let message = PAKEMessage(text: String(decoding: line, as: UTF8.self)) else { continue }
            FuzzCheck.expect(PAKEMessage(text: message.text) == message, "a PAKE message round trips")
            _ = responder.receive(message)
            _ = initiator.receive(message)
        }
    }

    @Sendable static func control(_ data: [UInt8]) {
        let text = String(fuzzBytes: data)
        if let json = try? JSON.parse(text), let delivery = DeliveryMessage(json: json) {
            FuzzCheck.expect((try? JSON.parse(delivery.text)).flatMap(DeliveryMessage.init(json:)) == delivery, "a delivery message round trips")
            // Whatever numbers a peer sends, the inbox stays within its bounds and says a gap at most once.
            var inbox = Inbox()
            switch delivery {
            case .hello(let epoch, let next): _ = inbox.receiveHello(epoch: epoch, next: next)
            case .gap(let epoch, let before, let lines):
                _ = inbox.receiveHello(epoch: epoch, next: max(1, before - 1))
                let said = inbox.receive("x", now: .zero) + inbox.receiveGap(epoch: epoch, before: before, lines: lines)
                let again = inbox.receiveGap(epoch: epoch, before: before, lines: lines)
                FuzzCheck.expect(said.filter { $0 != .line("x") }.count <= 1 && again.isEmpty, "a gap is said once")
            case .ack: break
            }
        }
        guard let message = ControlMessage(text: text) else { return }
        FuzzCheck.expect(ControlMessage(text: message.text) == message, "a ctl message round trips")
    }

    @Sendable static func sessionStore(_ data: [UInt8]) {
        // The first byte chooses the part: the header of a whole file, or a
        // decrypted payload.
        guard let part = data.first else { return }
        let rest = Array(data.dropFirst())
        if part & 1 == 0 {
            _ = StoreFileProbe.headerCiphertextLength(rest)
        } else if let json = try? JSON.parse(rest), let (contents, sealed) = StoreFileProbe.contents(json) {
            FuzzCheck.expect(StoreFileProbe.contents(sealed)?.0 == contents, "session-store contents round trip")
        }
    }
}

/// A seeded generator (SplitMix64), so that a fuzz input replays the same.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49EB_1331_11EB
        return z ^ (z >> 31)
    }
}
