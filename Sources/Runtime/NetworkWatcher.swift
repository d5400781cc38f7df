import CShims
import Glibc

/// What the machine's network looks like to chatcli: its usable addresses
/// (``NetworkInterfaces/addresses(includeLoopback:)``) and its default routes.
public struct NetworkSnapshot: Equatable, Sendable {
    public var addresses: Set<SocketAddress>
    public var defaultRoutes: [String]

    public init(addresses: Set<SocketAddress>, defaultRoutes: [String]) {
        self.addresses = addresses
        self.defaultRoutes = defaultRoutes
    }

    public static func current() -> NetworkSnapshot {
        NetworkSnapshot(addresses: Set(NetworkInterfaces.addresses()), defaultRoutes: DefaultRoutes.read())
    }
}

/// Tells when the machine's network changed: an address added or removed, a
/// link going up or down, the default route moving (a laptop switching
/// Wi-Fi). A rtnetlink socket (RTMGRP_LINK, _IPV4/_IPV6_IFADDR, _ROUTE) on
/// the event loop wakes it; the messages themselves are not parsed, since a
/// change arrives as a burst of them in no useful order: each one (or a
/// receive-buffer overrun, ENOBUFS) restarts a quiet-period timer, and when
/// it expires the snapshot is read again and `onChange` runs only if it
/// differs from the last one.
public final class NetworkWatcher {
    private let loop: EventLoop
    private let fd: Int32
    private var watch: Watch?
    private var timer: Timer?
    private let quietPeriod: Duration
    private let snapshot: () -> NetworkSnapshot
    public private(set) var current: NetworkSnapshot
    public var onChange: ((NetworkSnapshot) -> Void)?

    /// `snapshot` reads the network state (the real one by default).
    public init(loop: EventLoop, quietPeriod: Duration = .milliseconds(300),
                snapshot: @escaping () -> NetworkSnapshot = NetworkSnapshot.current) throws(RuntimeError) {
        let fd = cshims_netlink_route_socket()
        guard fd >= 0 else { throw .lastErrno("netlink socket") }
        self.loop = loop
        self.fd = fd
        self.quietPeriod = quietPeriod
        self.snapshot = snapshot
        current = snapshot()
        do {
            watch = try loop.watchReadable(fd: fd) { [weak self] in self?.drain() }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit { close() }

    public func close() {
        guard let watch else { return }
        watch.cancel()
        self.watch = nil
        timer?.cancel()
        timer = nil
        onChange = nil
        Glibc.close(fd)
    }

    private func drain() {
        let buffer = loop.readBuffer
        var sawSomething = false
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count < 0 && errno == EINTR { continue }
            // ENOBUFS: the kernel dropped messages, so something changed too.
            guard count > 0 || (count < 0 && errno == ENOBUFS) else { break }
            sawSomething = true
        }
        guard sawSomething else { return }
        timer?.cancel()
        timer = loop.schedule(after: quietPeriod) { [weak self] in self?.settle() }
    }

    private func settle() {
        timer = nil
        let now = snapshot()
        guard now != current else { return }
        current = now
        onChange?(now)
    }
}
