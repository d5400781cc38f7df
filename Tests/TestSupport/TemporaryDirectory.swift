import Foundation

/// A fresh directory under the system temp dir, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "chatcli-test") throws {
        var base = NSTemporaryDirectory()
        while base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/\(prefix)-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }
        }
        guard let created else {
            throw TestSupportError("mkdtemp failed: errno \(errno)")
        }
        path = String(cString: created)
    }

    /// `name` inside the directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Failures of test fixtures themselves (not of the code under test).
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
