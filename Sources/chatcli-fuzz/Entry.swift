import Fuzzing
#if canImport(Glibc)
import Glibc
#endif

#if CHATCLI_LIBFUZZER
// Built by Tools/fuzz with `--sanitize=fuzzer`: libFuzzer provides `main`
// and calls this for every input; CHATCLI_FUZZ_TARGET names the target.

/// Chosen once, before the first input (Swift globals are initialized
/// lazily and exactly once).
let selectedTarget: FuzzTarget = {
    guard let name = getenv("CHATCLI_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget.named(name) else {
        fatalError("set CHATCLI_FUZZ_TARGET to one of: \(FuzzTarget.all.map(\.name).joined(separator: " "))")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget.run(bytes)
    return 0
}

#else
// A normal build: replays corpora through the same harnesses, without the
// fuzzer (what `Tools/fuzz --replay` and a quick check of a finding use).

@main
enum ReplayMain {
    static let usage = """
        Usage: chatcli-fuzz replay [--corpora DIR] [TARGET...]   every file of DIR/TARGET (default Tests/FuzzCorpora, all targets)
               chatcli-fuzz run TARGET FILE...                   the given inputs
               chatcli-fuzz list                                 the targets
        """

    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else { fail(usage) }
        arguments.removeFirst()
        do {
            switch command {
            case "list":
                for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
            case "replay":
                var corpora = "Tests/FuzzCorpora"
                if arguments.first == "--corpora", arguments.count >= 2 {
                    corpora = arguments[1]
                    arguments.removeFirst(2)
                }
                for target in try targets(arguments.isEmpty ? FuzzTarget.all.map(\.name) : arguments) {
                    let count = try Corpus.replay(target, directory: corpora + "/" + target.name)
                    print("\(target.name): \(count) inputs replayed, no finding")
                }
            case "run":
                guard let name = arguments.first else { fail(usage) }
                let target = try targets([name])[0]
                for path in arguments.dropFirst() {
                    print("\(target.name): \(path)")
                    target.run(try Corpus.read(path))
                }
            case "-h", "--help", "help":
                print(usage)
            default:
                fail(usage)
            }
        } catch {
            fail("chatcli-fuzz: \(error)")
        }
    }

    static func targets(_ names: [String]) throws(UnknownTarget) -> [FuzzTarget] {
        var result: [FuzzTarget] = []
        for name in names {
            guard let target = FuzzTarget.named(name) else { throw UnknownTarget(name: name) }
            result.append(target)
        }
        return result
    }

    struct UnknownTarget: Error, CustomStringConvertible {
        let name: String
        var description: String { "no fuzz target \(name); known: \(FuzzTarget.all.map(\.name).joined(separator: " "))" }
    }

    static func fail(_ message: String) -> Never {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }
}
#endif
