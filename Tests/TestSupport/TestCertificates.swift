import Foundation

/// A throwaway PKI for TLS tests: a CA and a server certificate signed by it
/// for `localhost`, 127.0.0.1, ::1 and the browser lab's `browser.lab` and
/// 198.18.64.1 (EC P-256, valid 30 days), written as
/// PEM files with the `openssl` command-line tool.
///
/// Two calls give two unrelated CAs, which is how tests get an "unknown CA".
public struct TestCertificates: Sendable {
    public let caFile: String
    public let caKeyFile: String
    public let certFile: String
    public let keyFile: String

    /// Writes ca.pem, ca.key, server.pem and server.key into `directory`.
    public static func make(in directory: String) throws -> TestCertificates {
        let config = directory + "/openssl.cnf"
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        let certificates = TestCertificates(
            caFile: directory + "/ca.pem",
            caKeyFile: directory + "/ca.key",
            certFile: directory + "/server.pem",
            keyFile: directory + "/server.key"
        )
        let csr = directory + "/server.csr"
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", certificates.caKeyFile])
        try openssl(["req", "-x509", "-new", "-config", config, "-extensions", "ca_ext", "-key", certificates.caKeyFile,
                     "-sha256", "-days", "30", "-out", certificates.caFile])
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", certificates.keyFile])
        try openssl(["req", "-new", "-config", config, "-subj", "/CN=localhost", "-key", certificates.keyFile, "-out", csr])
        try openssl(["x509", "-req", "-in", csr, "-CA", certificates.caFile, "-CAkey", certificates.caKeyFile,
                     "-set_serial", "0x\(UInt64.random(in: 1...UInt64.max) >> 1)", "-sha256", "-days", "30",
                     "-extfile", config, "-extensions", "server_ext", "-out", certificates.certFile])
        return certificates
    }

    private static let configuration = """
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = chatcli test CA
        [ca_ext]
        basicConstraints = critical,CA:TRUE
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        [server_ext]
        basicConstraints = CA:FALSE
        keyUsage = critical,digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost,DNS:browser.lab,IP:127.0.0.1,IP:::1,IP:198.18.64.1
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        """

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.runSerialized()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self)
            throw TestSupportError("openssl \(arguments.first ?? "") failed: \(text)")
        }
    }
}
