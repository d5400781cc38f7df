/// One decoder under the fuzzer: a name (also its corpus folder under
/// `Tests/FuzzCorpora`) and a harness that feeds one input to the decoder
/// the way untrusted bytes reach it in the program.
///
/// A harness must not crash, trap, hang or leak unboundedly on any input;
/// where a decoder has an encoder, the harness also checks that what it
/// decoded survives a round trip, so a decoder that misreads bytes is a
/// finding too (``FuzzCheck/expect(_:_:)``).
public struct FuzzTarget: Sendable {
    public let name: String
    public let summary: String
    public let run: @Sendable ([UInt8]) -> Void

    public init(name: String, summary: String, run: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
        self.summary = summary
        self.run = run
    }

    /// Every target, network-facing decoders first (the order `Tools/fuzz`
    /// runs them in).
    public static let all: [FuzzTarget] = networkTargets + [turnServer, sctpAssociation, portMapping] + webTargets + applicationTargets

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Invariant checks inside harnesses. A broken invariant is a finding, so it
/// traps (libFuzzer records the input as a crash; a replay run stops there).
public enum FuzzCheck {
    public static func expect(_ condition: @autoclosure () -> Bool, _ what: @autoclosure () -> String,
                              file: StaticString = #fileID, line: UInt = #line) {
        if !condition() { fatalError("fuzz invariant broken: \(what())", file: file, line: line) }
    }
}

/// Splits one fuzz input into the pieces a streaming decoder receives, so
/// that the same bytes also arrive cut at arbitrary places: the first byte
/// chooses the piece sizes, the rest is the stream.
struct StreamInput {
    let stream: ArraySlice<UInt8>
    let pieces: [ArraySlice<UInt8>]

    init(_ data: [UInt8]) {
        guard let first = data.first else {
            stream = []
            pieces = []
            return
        }
        stream = data.dropFirst()
        var result: [ArraySlice<UInt8>] = []
        var index = stream.startIndex
        // 0 → all at once; otherwise pieces of 1...n bytes, varying with position.
        let seed = Int(first)
        var step = 0
        while index < stream.endIndex {
            let size = seed == 0 ? stream.count : 1 + (seed &* (step + 1) &+ step) % max(1, seed)
            let end = min(stream.endIndex, index + size)
            result.append(stream[index..<end])
            index = end
            step += 1
        }
        pieces = result
    }
}

extension String {
    /// Fuzz bytes as text the way the program receives text: WebSocket and
    /// data-channel strings arrive validated, so invalid UTF-8 is repaired.
    init(fuzzBytes bytes: [UInt8]) { self = String(decoding: bytes, as: UTF8.self) }
}
