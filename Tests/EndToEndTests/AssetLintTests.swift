import Foundation
import TestSupport
import Testing

/// The files `chatcli serve` embeds pass real linters (`Tools/lib/lint-assets`,
/// run by `Tools/test` before it builds): Debian's eslint on the page's
/// scripts, luacheck on each Redis script as Redis runs it.
@Suite(.ownThread) struct AssetLintTests {
    static let linter = Harness.packageRoot + "/Tools/lib/lint-assets"

    @Test func thePageAndTheRedisScriptsPassTheirLinters() throws {
        let result = try InstallTests.run(Self.linter, [])
        #expect(result.status == 0, "\(result.transcript)")
    }

    /// A script using an undefined name, and a Lua script reading an
    /// undefined global, each fail the lint and are named.
    @Test func aFindingInEitherLanguageFailsTheLint() throws {
        let root = Harness.temporaryDirectory()
        let scripts = Harness.packageRoot + "/Sources/SignalingServer/Cluster/Scripts"
        try FileManager.default.createDirectory(atPath: root + "/web", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/lua/Seat", withIntermediateDirectories: true)
        for name in ["common.lua", "seat-preamble.lua"] {
            try FileManager.default.copyItem(atPath: scripts + "/" + name, toPath: root + "/lua/" + name)
        }
        try "'use strict';\nsendTheSecret();\n".write(toFile: root + "/web/page.js", atomically: true, encoding: .utf8)
        try "return done()\n".write(toFile: root + "/lua/Seat/ok.lua", atomically: true, encoding: .utf8)
        try "return undefinedCount + 1\n".write(toFile: root + "/lua/broken.lua", atomically: true, encoding: .utf8)
        let result = try InstallTests.run(Self.linter, [], environment: ["CHATCLI_LINT_WEB": root + "/web", "CHATCLI_LINT_LUA": root + "/lua"])
        #expect(result.status == 1, "\(result.transcript)")
        let output = (result.stdout + result.stderr).joined(separator: "\n")
        #expect(output.contains("page.js") && output.contains("sendTheSecret"), "\(result.transcript)")
        #expect(output.contains("broken.lua") && output.contains("undefinedCount"), "\(result.transcript)")
        #expect(!output.contains("ok.lua"), "\(result.transcript)")
    }
}
