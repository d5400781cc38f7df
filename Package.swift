// swift-tools-version:6.0
import PackageDescription

/// System C libraries only (no package dependencies): each is a `systemLibrary`
/// target found through pkg-config, with the Debian package that provides it.
let package = Package(
    name: "chatcli",
    products: [
        .executable(name: "chatcli", targets: ["chatcli"]),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CReadline", providers: [.apt(["libreadline-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // The kernel's key retention service: the unlocked store key, cached per login session.
        .systemLibrary(name: "CKeyutils", providers: [.apt(["libkeyutils-dev"])]),
        .target(name: "CShims", dependencies: ["COpenSSL", "CSQLite", "CReadline"], linkerSettings: [.linkedLibrary("readline")]),

        .target(name: "Wire", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "STUN", dependencies: ["Wire", "COpenSSL"]),
        .target(name: "ICE", dependencies: ["Wire", "STUN", "TURN"]),
        .target(name: "TURN", dependencies: ["Wire", "STUN"]),
        // The relay inside `chatcli serve` (RFC 8656 server side), sans-IO.
        .target(name: "TURNServer", dependencies: ["Wire", "STUN", "TURN"]),
        .target(name: "HTTP1", dependencies: ["Wire"]),
        .target(name: "WebSocket", dependencies: ["Wire", "HTTP1", "COpenSSL"]),
        .target(name: "Signaling", dependencies: ["Wire"]),
        .target(name: "Runtime", dependencies: ["Wire", "COpenSSL", "CShims"]),
        .target(name: "DTLS", dependencies: ["Wire", "COpenSSL", "CShims"]),
        .target(name: "SDP", dependencies: ["Wire"]),
        // A sans-IO RESP codec and a Redis client on the event loop (for `serve --redis`).
        .target(name: "Redis", dependencies: ["Wire", "Runtime", "COpenSSL"]),
        .target(name: "MDNS", dependencies: ["Wire"]),
        // A sans-IO port-mapping client: PCP, NAT-PMP and UPnP IGD (PortMapping.md).
        .target(name: "PortMapping", dependencies: ["Wire", "STUN", "HTTP1"]),
        // The web page and the cluster's Redis scripts are files, embedded at build
        // time (`PackageResources`) and linted by Tools/lib/lint-assets.
        .target(name: "SignalingServer", dependencies: [
            "Wire", "STUN", "TURN", "TURNServer", "HTTP1", "WebSocket", "Signaling", "Runtime", "CSQLite", "COpenSSL", "CShims", "Redis",
        ], resources: [
            .embedInCode("Web/Assets/index.html"), .embedInCode("Web/Assets/app.css"), .embedInCode("Web/Assets/app.js"),
            .embedInCode("Web/Assets/sas-words.js"), .embedInCode("Web/Assets/icon.svg"),
            .embedInCode("Web/Assets/code-words.js"), .embedInCode("Web/Assets/cpace.js"),
            .embedInCode("Cluster/Scripts/common.lua"), .embedInCode("Cluster/Scripts/seat-preamble.lua"),
            .embedInCode("Cluster/Scripts/create.lua"), .embedInCode("Cluster/Scripts/limited.lua"),
            .embedInCode("Cluster/Scripts/accept.lua"), .embedInCode("Cluster/Scripts/check.lua"),
            .embedInCode("Cluster/Scripts/lookup.lua"), .embedInCode("Cluster/Scripts/delete.lua"),
            .embedInCode("Cluster/Scripts/purge.lua"), .embedInCode("Cluster/Scripts/beat.lua"),
            .embedInCode("Cluster/Scripts/Seat/join.lua"), .embedInCode("Cluster/Scripts/Seat/leave.lua"),
            .embedInCode("Cluster/Scripts/Seat/relay.lua"), .embedInCode("Cluster/Scripts/Seat/disconnect.lua"),
        ]),
        .target(name: "SCTP", dependencies: ["Wire", "CShims"]),
        .target(name: "PAKE", dependencies: ["Wire", "CSodium"]),
        // File transfer on its own data channel (FileTransfer.md): sans-IO sender and receiver, disk edges.
        .target(name: "FileTransfer", dependencies: ["Wire", "Runtime", "COpenSSL"]),
        // One chat as a sans-IO core (ChatSession): pairing, the room, the peer connection, delivery, PAKE and pinning,
        // file transfers. It never imports the runtime: ChatRuntime drives it.
        .target(name: "ChatClient", dependencies: [
            "Wire", "HTTP1", "Signaling", "ICE", "PeerConnection", "CSodium", "SessionStore", "PAKE", "MDNS", "FileTransfer",
        ]),
        // The driver: runs a ChatSession on the event loop (sockets, resolver, HTTP and WebSocket clients, timers,
        // the wake from disk threads), and the LAN, doctor and saved-session compositions around it.
        .target(name: "ChatRuntime", dependencies: [
            "ChatClient", "Runtime", "Wire", "HTTP1", "WebSocket", "Signaling", "STUN", "TURN", "ICE", "DTLS", "PeerConnection",
            "SessionStore", "PAKE", "MDNS", "FileTransfer", "PortMapping",
        ]),
        .target(name: "PeerConnection", dependencies: ["Wire", "STUN", "TURN", "ICE", "DTLS", "SCTP", "SDP"]),
        // The terminal side of chatcli: readline, the interactive chat, stdin lines.
        .target(name: "Terminal", dependencies: ["ChatClient", "ChatRuntime", "PeerConnection", "Signaling", "FileTransfer", "Runtime", "SessionStore", "CReadline", "CShims", "CQRencode"]),
        .target(name: "SessionStore", dependencies: ["Wire", "CSodium", "CShims", "CKeyutils"]),
        .executableTarget(name: "chatcli-bench", dependencies: ["PeerConnection", "Runtime", "STUN", "ICE"]),
        .executableTarget(name: "chatcli", dependencies: [
            "ChatClient", "ChatRuntime", "Signaling", "SignalingServer", "SessionStore", "Runtime", "Terminal", "Wire", "Redis", "DTLS", "FileTransfer",
        ]),

        .target(name: "TestSupport", dependencies: ["Wire", "STUN", "Runtime", "COpenSSL", "FileTransfer"], path: "Tests/TestSupport"),
        .testTarget(name: "WireTests", dependencies: ["Wire", "TestSupport"]),
        .testTarget(name: "STUNTests", dependencies: ["STUN", "Wire", "TestSupport"]),
        .testTarget(name: "ICETests", dependencies: ["ICE", "STUN", "TURN", "Wire", "TestSupport"]),
        .testTarget(name: "TURNTests", dependencies: ["TURN", "STUN", "Wire", "Runtime", "TestSupport", "COpenSSL"]),
        .testTarget(name: "TURNServerTests", dependencies: ["TURNServer", "TURN", "STUN", "Wire", "TestSupport"]),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1", "Wire", "TestSupport"]),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket", "HTTP1", "Wire", "TestSupport"]),
        .testTarget(name: "SignalingTests", dependencies: ["Signaling", "Wire", "TestSupport"]),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "Wire", "TestSupport"]),
        .testTarget(name: "MDNSTests", dependencies: ["MDNS", "Wire", "TestSupport"]),
        .testTarget(name: "PortMappingTests", dependencies: ["PortMapping", "STUN", "HTTP1", "TestSupport"]),
        .testTarget(name: "SDPTests", dependencies: ["SDP", "Wire", "TestSupport"]),
        .testTarget(name: "RedisTests", dependencies: ["Redis", "SignalingServer", "Wire", "TestSupport"]),
        .testTarget(name: "RuntimeTests", dependencies: ["Runtime", "Wire", "TestSupport"]),
        .testTarget(name: "SignalingServerTests", dependencies: [
            "SignalingServer", "Signaling", "HTTP1", "WebSocket", "STUN", "Wire", "TestSupport", "DTLS", "PAKE",
        ]),
        .testTarget(name: "ChatClientTests", dependencies: ["ChatClient", "Signaling", "STUN", "Wire", "TestSupport"]),
        .testTarget(name: "ChatRuntimeTests", dependencies: ["ChatRuntime", "ChatClient", "STUN", "Runtime", "TestSupport"]),
        .testTarget(name: "TerminalTests", dependencies: ["Terminal", "ChatClient", "TestSupport"]),
        .testTarget(name: "ChatSessionTests", dependencies: [
            "ChatClient", "SignalingServer", "Signaling", "HTTP1", "PeerConnection", "ICE", "PAKE", "FileTransfer", "SCTP", "TestSupport",
        ]),
        .testTarget(name: "PeerConnectionTests", dependencies: ["PeerConnection", "ICE", "STUN", "DTLS", "TestSupport"]),
        .testTarget(name: "FileTransferTests", dependencies: ["FileTransfer", "Wire", "TestSupport"]),
        .testTarget(name: "SCTPTests", dependencies: ["SCTP", "Wire", "TestSupport"]),
        .testTarget(name: "PAKETests", dependencies: ["PAKE", "Wire", "TestSupport"]),
        .testTarget(name: "SessionStoreTests", dependencies: ["SessionStore", "Wire", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "Wire", "STUN", "ICE", "Runtime", "ChatClient", "ChatRuntime", "SessionStore", "DTLS"], exclude: ["Python"]),
        // Fuzzing (Tools/fuzz): a harness per decoder, run by `chatcli-fuzz` under libFuzzer
        // (built with -DCHATCLI_LIBFUZZER) or as a corpus replay; FuzzCorpusTests replay the corpora.
        .target(name: "Fuzzing", dependencies: [
            "Wire", "STUN", "TURN", "TURNServer", "ICE", "SDP", "DTLS", "SCTP", "HTTP1", "WebSocket", "Signaling", "MDNS", "Redis",
            "FileTransfer", "PAKE", "ChatClient", "SessionStore", "PortMapping",
        ]),
        .executableTarget(name: "chatcli-fuzz", dependencies: ["Fuzzing"]),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["Fuzzing", "Wire", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
