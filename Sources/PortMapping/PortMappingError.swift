/// Why a gateway's port mapping could not be used, each worded once for
/// `chatcli doctor` and the logs.
public enum PortMappingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No gateway answered PCP, NAT-PMP or UPnP within the probe window.
    case noGateway
    /// The gateway answered but refused or mangled every request.
    case refused
    /// The gateway named an external address nobody outside can reach.
    case unreachableExternalAddress

    public var description: String {
        switch self {
        case .noGateway:
            "The network's gateway does not offer port mapping (no PCP, NAT-PMP or UPnP answer): chatcli connects without it; enable UPnP or NAT-PMP on the router for more direct connections."
        case .refused:
            "The network's gateway refused a port mapping: chatcli connects without it; check the router's UPnP/NAT-PMP settings."
        case .unreachableExternalAddress:
            "The network's gateway reported a private external address (it is behind another NAT): chatcli ignores its port mapping."
        }
    }
}
