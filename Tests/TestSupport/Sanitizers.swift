import Foundation

/// The sanitizers this run's binaries were built with (`Tools/test
/// --sanitize address,undefined` exports `CHATCLI_SANITIZERS`). Under
/// AddressSanitizer a process's resident memory measures the sanitizer
/// (redzones, a quarantine of freed memory), so memory bounds are checked
/// only without it; everything else runs the same.
public enum Sanitizers {
    public static let names: [String] = (ProcessInfo.processInfo.environment["CHATCLI_SANITIZERS"] ?? "")
        .split(separator: ",").map(String.init).filter { !$0.isEmpty }
    public static var address: Bool { names.contains("address") }
    public static var any: Bool { !names.isEmpty }
}
