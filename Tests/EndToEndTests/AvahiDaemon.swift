import Foundation
import Testing

/// A real avahi-daemon in one of a `LANLab`'s namespaces, with a private
/// D-Bus system bus (for avahi-browse and avahi-publish) and a private /run
/// (its pid file and socket are its own), on one interface.
///
/// Each daemon runs in the foreground under `unshare --fork --kill-child`,
/// which is the harness's child and is killed by pid when released (the
/// daemon dies with it). Never as a direct child: Foundation learns that a
/// child exited when the child's end of a socket pair closes, then waits for
/// it with a blocking waitpid on its one monitoring thread; avahi-daemon
/// closes every inherited descriptor at startup, so that thread blocked on
/// the running daemon and no other child's exit (avahi-browse's) was ever
/// seen: the test hung. Nor started in the background of a shell: the
/// daemon would hold the shell's pipes and socket.
final class AvahiDaemon {
    static let installed = ["/usr/sbin/avahi-daemon", "/usr/bin/avahi-browse", "/usr/bin/dbus-daemon"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    let directory: String
    /// For avahi-browse and avahi-publish: where the private bus listens.
    let environment: [String: String]
    private var bus: ChildProcess?
    private var daemon: ChildProcess?

    init(lab: LANLab, namespace: String, interface: String) throws {
        directory = Harness.temporaryDirectory()
        let address = "unix:path=\(directory)/bus"
        environment = ["DBUS_SYSTEM_BUS_ADDRESS": address]
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>\(address)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/>
            <allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
            """.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        try "[server]\nuse-ipv4=yes\nuse-ipv6=yes\nenable-dbus=yes\nallow-interfaces=\(interface)\n[publish]\npublish-workstation=no\n"
            .write(toFile: directory + "/avahi.conf", atomically: true, encoding: .utf8)
        // --print-address: a line once the bus listens.
        let bus = try ChildProcess("/usr/bin/unshare", ["--fork", "--kill-child", "dbus-daemon", "--config-file=\(directory)/bus.conf", "--nofork", "--print-address=1"], name: "dbus-daemon")
        self.bus = bus
        try #require(bus.waitForLine(timeout: 30) { $0.hasPrefix("unix:") } != nil, "\(bus.transcript)")
        let script = "mount -t tmpfs tmpfs /run && mkdir -p /run/avahi-daemon"
            + " && exec avahi-daemon -f \(directory)/avahi.conf --no-drop-root --no-chroot --no-rlimits --no-proc-title"
        let daemon = try lab.exec(namespace, ["unshare", "--mount", "--fork", "--kill-child", "sh", "-c", script], name: "avahi-daemon", environment: environment)
        self.daemon = daemon
        try #require(daemon.waitForLine(stderr: true, timeout: 30) { $0.contains("Server startup complete") } != nil, "\(daemon.transcript)")
    }

    /// The daemon first (its wrapper reaps it and exits), then the wrapper
    /// if it is still there.
    deinit {
        for wrapper in [daemon, bus].compactMap({ $0 }) {
            let children = (try? String(contentsOfFile: "/proc/\(wrapper.pid)/task/\(wrapper.pid)/children", encoding: .utf8)) ?? ""
            for pid in children.split(separator: " ").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
            if wrapper.waitForExit(timeout: 10) == nil { wrapper.signal(SIGKILL) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
