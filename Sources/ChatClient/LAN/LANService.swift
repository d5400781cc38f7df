import MDNS

/// The DNS-SD service of a chat waiting on the local network:
/// `<random instance>._chatcli._udp.local`, SRV to the creator's embedded
/// signaling endpoint, TXT `v=1`, `port` (that endpoint's), `name` (what
/// the creator chose with `--name`), and `salt`/`proof` (see ``LANProof``).
/// Neither the instance nor the host name says anything about the code.
public enum LANService {
    public static let type = DNSName("_chatcli._udp.local")!
    public static let version = "1"

    public static func instance(name: String, port: UInt16, proof: LANProof) -> ServiceInstance {
        var txt = proof.txt
        txt["v"] = version
        txt["port"] = String(port)
        txt["name"] = String(decoding: Array(name.utf8.prefix(100)), as: UTF8.self)
        return ServiceInstance(instance: randomLabel(), serviceType: type, port: port, txt: txt)
    }

    /// `chatcli-` and 12 random hex digits: an instance or host label.
    public static func randomLabel() -> String {
        var rng = SystemRandomNumberGenerator()
        let value = UInt64.random(in: 0 ... 0xFFFF_FFFF_FFFF, using: &rng)
        let hex = String(value, radix: 16)
        return "chatcli-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// A chat heard nearby, as `chatcli lan` lists it.
    public struct Waiting: Hashable, Sendable {
        public let instance: String
        /// The creator's `--name`, untrusted (sanitize before showing it).
        public let name: String
        public let proof: LANProof
        public let port: UInt16
    }

    /// Our services among what a querier heard (version 1, with a proof), one per instance.
    public static func waiting(_ heard: [ResolvedService]) -> [Waiting] {
        var seen: Set<String> = []
        var result: [Waiting] = []
        for service in heard where service.txt["v"] == version && !seen.contains(service.instance) {
            guard let proof = LANProof(txt: service.txt) else { continue }
            seen.insert(service.instance)
            result.append(Waiting(instance: service.instance, name: service.txt["name"] ?? "", proof: proof, port: service.port))
        }
        return result
    }
}
