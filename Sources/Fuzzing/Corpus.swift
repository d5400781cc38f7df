#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A target's corpus folder (`Tests/FuzzCorpora/<target>`): every input the
/// fuzzer kept because it reached new code, plus the seeds and findings.
public enum Corpus {
    public struct ReadError: Error, CustomStringConvertible {
        public let path: String
        public let code: Int32
        public var description: String { "cannot read \(path): \(String(cString: strerror(code)))" }
    }

    /// Paths of the regular files in `directory`, sorted (hidden files skipped).
    public static func files(in directory: String) throws(ReadError) -> [String] {
        guard let dir = opendir(directory) else { throw ReadError(path: directory, code: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            var info = stat()
            let path = directory + "/" + name
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG { names.append(path) }
        }
        return names.sorted()
    }

    /// Names of the folders in `directory`, sorted.
    public static func folders(in directory: String) throws(ReadError) -> [String] {
        guard let dir = opendir(directory) else { throw ReadError(path: directory, code: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            var info = stat()
            if !name.hasPrefix("."), stat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { names.append(name) }
        }
        return names.sorted()
    }

    /// The whole file at `path`.
    public static func read(_ path: String) throws(ReadError) -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw ReadError(path: path, code: errno) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            bytes.append(contentsOf: buffer[0..<count])
            if count < buffer.count {
                if ferror(file) != 0 { throw ReadError(path: path, code: errno) }
                return bytes
            }
        }
    }

    /// Runs every file of `directory` through `target`; the number of files.
    /// A finding traps, so a crash names the file last printed by the caller.
    @discardableResult
    public static func replay(_ target: FuzzTarget, directory: String, before: (String) -> Void = { _ in }) throws(ReadError) -> Int {
        let paths = try files(in: directory)
        for path in paths {
            before(path)
            target.run(try read(path))
        }
        return paths.count
    }
}
