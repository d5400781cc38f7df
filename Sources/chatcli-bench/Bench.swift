import Glibc
import Runtime

/// `chatcli-bench`: data-channel performance of two chatcli `PeerConnection`s
/// in one process over 127.0.0.1 (host candidates, no server). Prints one
/// JSON line with `--json`, a short table otherwise. `Tools/bench transfer`
/// runs it next to the same measurement for aiortc.
@main
struct ChatcliBench {
    static func main() {
        var json = false
        var seconds = 5.0
        var only: String?
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--json": json = true
            case "--duration":
                guard let value = arguments.popFirst().flatMap(Double.init), value > 0 else { usage() }
                seconds = value
            case "--only":
                // For profiling one phase: runs it alone and prints its raw figures.
                guard let phase = arguments.popFirst(), ["setup", "bulk", "small", "rtt"].contains(phase) else { usage() }
                only = phase
            default: usage()
            }
        }
        do {
            let loop = try EventLoop()
            if let only {
                try runAlone(only, loop: loop, seconds: seconds)
                return
            }
            let setup = try Measurements.setup(loop: loop)
            let bulk = try Measurements.stream(loop: loop, size: 16 * 1024, seconds: seconds)
            let small = try Measurements.stream(loop: loop, size: 100, seconds: seconds)
            let rtt = try Measurements.roundTrips(loop: loop)
            let megabytes = Double(bulk.bytes) / 1e6
            let fields: [(String, String)] = [
                ("setup_ms", fixed(setup, 2)),
                ("bulk_MBps", fixed(megabytes / bulk.elapsed, 1)),
                ("small_msgs_per_s", fixed(Double(small.messages) / small.elapsed, 0)),
                ("rtt_us_median", fixed(Measurements.median(rtt), 1)),
                ("rtt_us_p99", fixed(Measurements.percentile(rtt, 99), 1)),
                ("cpu_ms_per_MB", megabytes > 0 ? fixed(bulk.cpu * 1000 / megabytes, 2) : "null"),
            ]
            if json {
                print("{\"stack\":\"chatcli\"," + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
            } else {
                for (name, value) in fields { print(name.padding(18) + value) }
            }
        } catch {
            printError("chatcli-bench: \(error)")
            exit(1)
        }
    }

    static func runAlone(_ phase: String, loop: EventLoop, seconds: Double) throws {
        switch phase {
        case "setup": print("setup_ms \(fixed(try Measurements.setup(loop: loop), 2))")
        case "rtt": print("rtt_us_median \(fixed(Measurements.median(try Measurements.roundTrips(loop: loop)), 1))")
        default:
            let result = try Measurements.stream(loop: loop, size: phase == "bulk" ? 16 * 1024 : 100, seconds: seconds)
            print("\(phase): \(result.bytes) bytes, \(result.messages) messages in \(fixed(result.elapsed, 3)) s, CPU \(fixed(result.cpu, 3)) s; "
                  + "\(result.sentDatagrams) datagrams (\(result.sentBytes) bytes) sent, \(result.returnedDatagrams) back")
        }
    }

    static func usage() -> Never {
        printError("usage: chatcli-bench [--json] [--duration SECONDS] [--only setup|bulk|small|rtt]")
        exit(2)
    }

    /// `value` with `digits` decimals (no Foundation formatter needed).
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((abs(value) * scale).rounded())
        let whole = scaled / Int64(scale)
        var text = (value < 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let fraction = String(scaled % Int64(scale))
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        return text
    }
}

/// A line on standard error (fd 2 directly: the C `stderr` global is not
/// importable in Swift 6 mode).
func printError(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
