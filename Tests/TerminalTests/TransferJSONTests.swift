import ChatClient
import FileTransfer
import Testing
@testable import Terminal

/// `--json` transfer events: sizes as exact integers, peer names escaped.
@Suite struct TransferJSONTests {
    @Test func aTwoToThe63ByteOfferIsAnIntegerAndItsNameIsEscaped() throws {
        let offer = TransferOffer(name: "gpj.\u{202E}exe\u{85}", totalSize: 1 << 63, fileCount: 1, folderCount: 0, isFolder: false)
        let line = try #require(TransferPrinter.json(.offered(id: 1, offer))?.serialized)
        #expect(line.contains(#""size":9223372036854775808,"#), "\(line)")
        #expect(line.contains(#""name":"gpj.\u202eexe\u0085""#), "\(line)")
        let progress = try #require(TransferPrinter.json(.progress(id: 1, .receiving, done: UInt64.max - 1, total: UInt64.max - 1, rate: nil, eta: nil))?.serialized)
        #expect(progress.contains(#""bytes":18446744073709551614,"total":18446744073709551614,"#), "\(progress)")
    }
}
