import Fuzzing
import Testing
import TestSupport

/// Every fuzz target's corpus (seeds, what coverage-guided fuzzing kept, and
/// past findings) replayed through the same harness the fuzzer runs, so a
/// decoder change that crashes on any of them, or breaks a round trip, fails
/// the suite without a fuzzer build.
@Suite(.computeThread) struct CorpusReplayTests {
    static let corpora: String = {
        // …/Tests/FuzzCorpusTests/CorpusReplayTests.swift → …/Tests/FuzzCorpora
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        return parts.joined(separator: "/") + "/FuzzCorpora"
    }()

    @Test(arguments: FuzzTarget.all.map(\.name))
    func corpusReplaysWithoutAFinding(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let count = try Corpus.replay(target, directory: Self.corpora + "/" + name)
        #expect(count > 0, "Tests/FuzzCorpora/\(name) holds no inputs")
    }

    @Test func everyCorpusFolderBelongsToATarget() throws {
        let names = Set(FuzzTarget.all.map(\.name))
        #expect(names.count == FuzzTarget.all.count, "target names are unique")
        let folders = try Corpus.folders(in: Self.corpora)
        #expect(Set(folders) == names)
    }
}
