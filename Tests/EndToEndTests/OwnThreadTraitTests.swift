import Foundation
import Testing
import TestSupport

/// Every end-to-end suite runs on its own threads: one without the trait
/// would block Swift's cooperative pool again (and the unit tests with it).
@Suite struct OwnThreadTraitTests {
    @Test func everyEndToEndSuiteHasTheTrait() throws {
        let folder = Harness.packageRoot + "/Tests/EndToEndTests"
        var missing: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") && file != "OwnThreadTraitTests.swift" {
            let lines = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.range(of: #"^(@Suite(\(.*\))? )?(struct|final class) "#, options: .regularExpression) != nil {
                // The attribute: on the same line, or on the lines just above.
                let above = lines[..<index].reversed().prefix { $0.hasPrefix("@") || $0.hasPrefix("  ") || $0.hasPrefix("//") }
                let attribute = line.hasPrefix("@Suite") ? line : above.last { $0.hasPrefix("@Suite") }
                let body = lines[index...].prefix { !$0.hasPrefix("}") }
                guard body.contains(where: { $0.contains("@Test") }) else { continue }
                if !(attribute?.contains(".ownThread") ?? false) { missing.append("\(file): \(line)") }
            }
        }
        #expect(missing.isEmpty, "add .ownThread to these suites' @Suite: \(missing)")
    }
}
