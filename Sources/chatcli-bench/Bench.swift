import Glibc
import ICE
import Runtime
import STUN

/// `chatcli-bench`: data-channel performance of two chatcli `PeerConnection`s
/// in one process over 127.0.0.1 (host candidates, no server; or relay-only
/// through a TURN server over UDP with `--turn`). Prints one JSON line with
/// `--json`, a short table otherwise. `Tools/bench transfer` runs it next to
/// the same measurement for aiortc; `Tools/bench relay` through `chatcli
/// serve`'s relay and through coturn.
@main
struct ChatcliBench {
    static func main() {
        var json = false
        var seconds = 5.0
        var only: String?
        var turn: (address: STUNAddress?, username: String?, password: String?) = (nil, nil, nil)
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
            case "--turn":
                guard let text = arguments.popFirst(), let address = turnAddress(text) else { usage() }
                turn.address = address
            case "--turn-user":
                guard let value = arguments.popFirst() else { usage() }
                turn.username = value
            case "--turn-password":
                guard let value = arguments.popFirst() else { usage() }
                turn.password = value
            default: usage()
            }
        }
        var relay: ICETURNServer?
        switch turn {
        case (nil, nil, nil): break
        case let (address?, username?, password?): relay = ICETURNServer(address: address, transport: .udp, username: username, password: password)
        default: usage()
        }
        do {
            let loop = try EventLoop()
            if let only {
                try runAlone(only, loop: loop, relay: relay, seconds: seconds)
                return
            }
            let setup = try Measurements.setup(loop: loop, relay: relay)
            let bulk = try Measurements.stream(loop: loop, relay: relay, size: 16 * 1024, seconds: seconds)
            let small = try Measurements.stream(loop: loop, relay: relay, size: 100, seconds: seconds)
            let rtt = try Measurements.roundTrips(loop: loop, relay: relay)
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

    static func runAlone(_ phase: String, loop: EventLoop, relay: ICETURNServer?, seconds: Double) throws {
        switch phase {
        case "setup": print("setup_ms \(fixed(try Measurements.setup(loop: loop, relay: relay), 2))")
        case "rtt": print("rtt_us_median \(fixed(Measurements.median(try Measurements.roundTrips(loop: loop, relay: relay)), 1))")
        default:
            let result = try Measurements.stream(loop: loop, relay: relay, size: phase == "bulk" ? 16 * 1024 : 100, seconds: seconds)
            print("\(phase): \(result.bytes) bytes, \(result.messages) messages in \(fixed(result.elapsed, 3)) s, CPU \(fixed(result.cpu, 3)) s; "
                  + "\(result.sentDatagrams) datagrams (\(result.sentBytes) bytes) sent, \(result.returnedDatagrams) back")
        }
    }

    static func usage() -> Never {
        printError("usage: chatcli-bench [--json] [--duration SECONDS] [--only setup|bulk|small|rtt] "
                   + "[--turn IPV4:PORT --turn-user U --turn-password P]")
        exit(2)
    }

    /// `127.0.0.1:3478`: an IPv4 address and a port (the benchmark's TURN server).
    static func turnAddress(_ text: String) -> STUNAddress? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]), port > 0,
              let address = SocketAddress(ip: String(parts[0]), port: port) else { return nil }
        return STUNAddress(ip: address.ipBytes, port: port)
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
