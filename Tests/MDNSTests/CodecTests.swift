import Testing
import TestSupport
@testable import MDNS
import Wire

struct CodecTests {
    let service = DNSName("_chatcli._udp.local")!

    /// RFC 1035 §4.1.4's example: F.ISI.ARPA at offset 20, FOO.F.ISI.ARPA as
    /// FOO plus a pointer to 20, ARPA as a pointer to 26, and the root.
    @Test func rfc1035CompressionExampleDecodes() throws {
        var bytes = [UInt8](repeating: 0, count: 20)
        bytes += [1, 0x46, 3, 0x49, 0x53, 0x49, 4, 0x41, 0x52, 0x50, 0x41, 0]  // offset 20: F.ISI.ARPA
        bytes += [3, 0x46, 0x4F, 0x4F, 0xC0, 20]                              // offset 32: FOO + ptr 20
        bytes += [0xC0, 26]                                                    // offset 38: ptr 26 (ARPA)
        bytes += [0]                                                           // offset 40: root
        var reader = Wire.ByteReader(bytes, range: 32..<bytes.count)
        #expect(try NameCompression.read(&reader, message: bytes) == DNSName("FOO.F.ISI.ARPA")!)
        #expect(reader.offset == 38)
        #expect(try NameCompression.read(&reader, message: bytes) == DNSName("ARPA")!)
        #expect(try NameCompression.read(&reader, message: bytes) == DNSName.root)
    }

    /// RFC 6763 §6.4/§6.5: keys are case-insensitive, the first of a repeated key
    /// wins, a string without '=' is a key with no value.
    @Test func txtKeysFollowRFC6763() {
        let strings = ["txtvers=1", "PaperSize=A4", "papersize=Letter", "Rendezvous"].map { Array($0.utf8) }
        #expect(ServiceInstance.parseTXT(strings) == ["txtvers": "1", "papersize": "A4", "rendezvous": ""])
    }

    /// A DNS-SD answer as RFC 6763 §12.1 lays it out: PTR in answers, SRV,
    /// TXT and addresses in additionals, survives encoding with compression.
    @Test func dnsSDResponseRoundTrips() throws {
        let instance = DNSName(instance: "Building 1, 1st floor", in: service)!
        let host = DNSName("host-1.local")!
        let message = DNSMessage(flags: DNSMessage.responseFlags,
            answers: [DNSRecord(name: service, data: .ptr(instance), ttl: 4500)],
            additionals: [
                DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: 4242, target: host), ttl: 120, cacheFlush: true),
                DNSRecord(name: instance, data: .txt([Array("v=1".utf8), Array("port=4242".utf8)]), ttl: 4500, cacheFlush: true),
                DNSRecord(name: host, data: .a([192, 0, 2, 7]), ttl: 120, cacheFlush: true),
                DNSRecord(name: host, data: .aaaa([0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1]), ttl: 120, cacheFlush: true),
                DNSRecord(name: host, data: .other(.nsec, [0xC0, 0x0C, 0, 4, 0x40, 0, 0, 8]), ttl: 120, cacheFlush: true),
            ])
        let bytes = message.encoded()
        let decoded = try DNSMessage(decoding: bytes)
        #expect(decoded == message)
        #expect(decoded.isResponse)
        // `_chatcli._udp.local` is written once; later uses are pointers.
        let uncompressed = message.answers.count * 0 + bytes.count
        #expect(uncompressed < 200)
    }

    @Test func questionBitsAndCacheFlushBitsAreTheirOwn() throws {
        let query = DNSMessage(questions: [DNSQuestion(name: service, type: .ptr, unicastResponse: true)],
                               answers: [DNSRecord(name: service, data: .ptr(service), ttl: 10, cacheFlush: true)])
        let bytes = query.encoded()
        // Question class: 0x8001 (QU + IN); record class: 0x8001 (flush + IN).
        #expect(bytes[12 + 21 + 2] == 0x80 && bytes[12 + 21 + 3] == 0x01)
        let decoded = try DNSMessage(decoding: bytes)
        #expect(decoded.questions[0].unicastResponse && decoded.questions[0].questionClass == 1)
        #expect(decoded.answers[0].cacheFlush && decoded.answers[0].recordClass == 1)
    }

    @Test func pointerLoopsAndForwardPointersAreRejected() {
        let header: [UInt8] = [0, 0, 0x84, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        // A pointer to itself, to a later offset, and a two-step loop.
        #expect(throws: MDNSError.badPointer) { try DNSMessage(decoding: header + [0xC0, 12, 0, 1, 0, 1]) }
        #expect(throws: MDNSError.badPointer) { try DNSMessage(decoding: header + [0xC0, 14, 0, 1, 0, 1, 0]) }
        #expect(throws: MDNSError.badPointer) { try DNSMessage(decoding: header + [1, 0x61, 0xC0, 12, 0, 1, 0, 1]) }
        #expect(throws: MDNSError.badName) { try DNSMessage(decoding: header + [0x40, 0, 0, 1, 0, 1]) }
    }

    @Test func impossibleCountsAreRejectedBeforeAllocating() {
        #expect(throws: MDNSError.badCounts) { try DNSMessage(decoding: [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]) }
    }

    @Test func namesOver255BytesAreRejected() {
        var bytes: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        for _ in 0..<5 { bytes += [63] + [UInt8](repeating: 0x61, count: 63) }
        bytes += [0, 0, 1, 0, 1]
        #expect(throws: MDNSError.badName) { try DNSMessage(decoding: bytes) }
        #expect(DNSName(labels: Array(repeating: Array("a".utf8), count: 128)) == nil)
    }

    @Test func namesCompareWithoutCase() {
        #expect(DNSName("_ChatCli._UDP.Local") == service)
        #expect(Set([DNSName("A.local")!, DNSName("a.LOCAL")!]).count == 1)
    }
}
