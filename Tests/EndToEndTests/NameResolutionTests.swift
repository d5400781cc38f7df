import Foundation
import TestSupport
import Testing

/// A server name that does not resolve is one clear failure, never a hang:
/// the lookup runs off the event loop with a deadline, and a connection
/// that fails before the loop starts still ends it.
@Suite(.ownThread) struct NameResolutionTests {
    @Test(arguments: [[], ["--json"]])
    func doctorWithAServerNameThatDoesNotResolveExitsOneWithOneSentence(extra: [String]) throws {
        let p = try ChildProcess.chatcli(["doctor", "--server", "http://nonexistent.invalid:8080"] + extra, name: "doctor")
        p.closeInput()
        let status = p.waitForExit(timeout: 10)
        #expect(status == 1, "exits 1 within 10 s: \(p.transcript)")
        let sentence = "Cannot reach the chatcli server at http://nonexistent.invalid:8080 ("
        if extra.isEmpty {
            #expect(p.stdout.first?.hasPrefix("Server:  http://nonexistent.invalid:8080 is NOT reachable. " + sentence) == true, "\(p.transcript)")
            #expect(p.stderr == ["Checking http://nonexistent.invalid:8080…"], "nothing else on stderr: \(p.transcript)")
        } else {
            let report = try #require(p.stdout.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] },
                                      "\(p.transcript)")
            #expect(report["reachable"] as? Bool == false)
            #expect((report["server_error"] as? String)?.hasPrefix(sentence) == true, "\(report)")
            #expect(p.stderr.isEmpty, "\(p.transcript)")
        }
    }
}
