import Foundation
import TestSupport
import Testing

private let zbarimg = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// `chatcli create` on a terminal draws a QR code of the invite link; it is
/// read back off the real screen (tmux), turned into pixels and decoded by
/// zbar's `zbarimg`, so the code scans as the link. Never into a pipe or `--json`.
@Suite(.ownThread, .serialized, .enabled(if: TmuxPane.available && zbarimg != nil, "needs tmux and zbarimg (Debian zbar-tools)"))
struct InviteQRCodeTests {

    @Test(arguments: [true, false])
    func theInteractiveChatDrawsAQRCodeThatScansAsTheLink(colors: Bool) throws {
        let server = try ServerProcess()
        let (alice, code) = try InteractiveTests.create(server, colors: colors)
        defer { alice.kill() }
        let shown = alice.waitFor(timeout: 20) { Self.symbol(in: $0).count > 10 }
        // The locator in the path, the secret words in the fragment.
        let link = try #require(shown.screen.range(of: #"http://\S+/j/\d{6}#[a-z]+-[a-z]+"#, options: .regularExpression)
            .map { String(shown.screen[$0]) }, "\(shown.screen)")
        #expect(link.hasPrefix("\(server.url)/j/\(code)#"), "\(link)")
        #expect(shown.screen.contains("Or open this link in a browser: \(link)"), "\(shown.screen)")
        #expect(try Self.decode(Self.symbol(in: shown.screen)) == link, "\(shown.screen)")
        if colors {
            // White on black set by the code itself: it scans on a light theme too.
            #expect(alice.screen(escapes: true).contains("\u{1B}[97m\u{1B}[40m"))
        }
    }

    /// Standard input from a pipe, standard output a terminal: the plain
    /// (not interactive) output still has the code under the link.
    @Test func aTerminalOnStandardOutputAloneGetsTheQRCodeToo() throws {
        let server = try ServerProcess()
        let pane = try TmuxPane(name: "qr", command: ["/bin/bash", "-c", "sleep 60 | \"$0\" create --server \"$1\" --no-store", Harness.chatcliPath, server.url],
                                environment: ["LANG": "C.UTF-8", "TERM": "screen", "NO_COLOR": "1"])
        defer { pane.kill() }
        let shown = pane.waitFor(timeout: 20) { Self.symbol(in: $0).count > 10 }
        let link = try #require(shown.screen.range(of: #"http://\S+/j/\d{6}#[a-z]+-[a-z]+"#, options: .regularExpression).map { String(shown.screen[$0]) }, "\(shown.screen)")
        #expect(try Self.decode(Self.symbol(in: shown.screen)) == link)
    }

    /// A terminal narrower than the code gets the link alone, not a broken code.
    @Test func aTerminalTooNarrowGetsNoQRCode() throws {
        let server = try ServerProcess()
        let pane = try TmuxPane(name: "qr", command: ["/bin/bash", "-c", "stty cols 30; sleep 60 | \"$0\" create --server \"$1\" --no-store", Harness.chatcliPath, server.url],
                                environment: ["LANG": "C.UTF-8", "TERM": "screen", "NO_COLOR": "1"])
        defer { pane.kill() }
        let shown = pane.waitFor(timeout: 20) { $0.contains("Or open this link") && $0.contains("Waiting") }
        #expect(shown.ok, "\(shown.screen)")
        #expect(!shown.screen.contains("█"), "\(shown.screen)")
    }

    @Test func noQRCodeIntoAPipeNorInJSON() throws {
        let server = try ServerProcess()
        for json in [false, true] {
            let cli = try ChildProcess.chatcli(["create", "--server", server.url, "--no-store"] + (json ? ["--json"] : []), name: "create")
            #expect(cli.waitForLine(timeout: 20) { $0.contains("/j/") } != nil, "\(cli.transcript)")
            cli.signal(SIGINT)
            _ = cli.waitForExit(timeout: 20)
            #expect(!cli.stdout.joined().contains { "█▀▄".contains($0) }, "\(cli.transcript)")
            #expect(!cli.stderr.joined().contains { "█▀▄".contains($0) }, "\(cli.transcript)")
        }
    }

    /// The lines of the drawn symbol: only half blocks and spaces.
    static func symbol(in screen: String) -> [String] {
        screen.split(separator: "\n").map(String.init).filter { line in
            line.contains("█") && line.allSatisfy { "█▀▄ ".contains($0) }
        }
    }

    /// What zbarimg reads in the drawing: each cell is two modules (top and
    /// bottom half), a drawn half is light, a blank one dark; 4 pixels a module.
    static func decode(_ lines: [String]) throws -> String {
        let width = lines.map(\.count).max() ?? 0, scale = 4
        var rows: [[Character]] = []
        for line in lines {
            let cells = Array(line.padding(toLength: width, withPad: " ", startingAt: 0))
            rows.append(cells.map { $0 == "█" || $0 == "▀" ? "0" : "1" })
            rows.append(cells.map { $0 == "█" || $0 == "▄" ? "0" : "1" })
        }
        var pbm = "P1\n\(width * scale) \(rows.count * scale)\n"
        for row in rows {
            let line = row.flatMap { Array(repeating: String($0), count: scale) }.joined(separator: " ") + "\n"
            pbm += String(repeating: line, count: scale)
        }
        let path = Harness.temporaryDirectory() + "/qr.pbm"
        try pbm.write(toFile: path, atomically: true, encoding: .ascii)
        let zbar = try ChildProcess(zbarimg ?? "zbarimg", ["--raw", "-q", path], name: "zbarimg")
        #expect(zbar.waitForExit(timeout: 30) == 0, "\(zbar.transcript)")
        return zbar.stdout.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
