import ChatClient
import ChatRuntime
import Glibc
import Runtime
import Terminal

/// `chatcli doctor`: runs the checks and prints the report. Exits 1 when the
/// server cannot be reached, else 0 (a difficult NAT is a finding, not a failure).
enum DoctorCommand {
    static func run(_ args: ParsedArguments) -> Int32 {
        let serverText = args.value("server") ?? ChatCommand.environment("CHATCLI_SERVER") ?? Commands.defaultServer
        guard let server = ServerURL(serverText) else {
            Output.write("chatcli: '\(serverText)' is not a server URL: use http://HOST:PORT or https://HOST\n", to: 2)
            return 2
        }
        guard let iceServers = ICEServerOptions.entries(args) else { return 2 }
        do {
            let loop = try EventLoop()
            let connector = try Connector(loop: loop, server: server, caFile: args.value("ca-file"))
            var status: Int32 = 1
            try loop.onSignal([SIGINT, SIGTERM]) { _ in
                status = 130
                loop.stop()
            }
            if !args.has("json") { Output.write("Checking \(server)…\n", to: 2) }
            let doctor = Doctor(loop: loop, connector: connector, extraICEServers: iceServers)
            doctor.portMapping = ChatCommand.portMappingWanted(args)
            doctor.run { report in
                Output.write((args.has("json") ? report.json.serialized : report.text) + "\n", to: 1)
                status = report.reachable ? 0 : 1
                loop.stop()
            }
            loop.run()
            return status
        } catch let error as ClientError {
            Output.write("chatcli: \(error.message)\n", to: 2)
        } catch {
            Output.write("chatcli: cannot start: \(error)\n", to: 2)
        }
        return 1
    }
}
