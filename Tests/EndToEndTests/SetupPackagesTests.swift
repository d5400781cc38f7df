import Foundation
import TestSupport
import Testing

/// `Tools/test` installs every Debian package the suite uses: each program
/// named in the tests and tools is traced to its package (`dpkg -S`) and
/// must be in `CHATCLI_APT_PACKAGES` or in Debian's base system
/// (`Tools/lib/check-packages`).
@Suite(.ownThreadFirst) struct SetupPackagesTests {
    static let checker = Harness.packageRoot + "/Tools/lib/check-packages"

    @Test func everyProgramTheTestsRunIsInstalledByToolsTest() throws {
        let result = try InstallTests.run(Self.checker, [], timeout: 300)   // dpkg -S per program: slow on a busy machine
        #expect(result.status == 0, "\(result.transcript)")
    }

    /// The check catches a missing package: with nftables taken off the
    /// list (the package whose absence once broke a fresh machine), it
    /// names `nft`.
    @Test func aPackageMissingFromTheListIsNamed() throws {
        let setup = try String(contentsOfFile: Harness.packageRoot + "/Tools/lib/setup.sh", encoding: .utf8)
        #expect(setup.contains(" nftables "))
        let copy = NSTemporaryDirectory() + "setup-\(getpid()).sh"
        try setup.replacingOccurrences(of: " nftables ", with: " ").write(toFile: copy, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let result = try InstallTests.run(Self.checker, [], environment: ["CHATCLI_SETUP_SH": copy], timeout: 300)
        #expect(result.status == 1, "\(result.transcript)")
        #expect(result.stdout.contains { $0.hasPrefix("nft") && $0.contains("nftables") }, "\(result.transcript)")
    }
}
