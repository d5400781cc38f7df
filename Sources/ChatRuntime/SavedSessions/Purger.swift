import ChatClient
import Runtime
import Wire

/// Asks servers to forget device ids (`POST /api/user/purge`, at most 100 ids
/// a request), every server at once, each request with a deadline.
public enum Purger {
    public enum Outcome: Equatable, Sendable {
        case purged
        /// Worth retrying later: no connection, a timeout, or a 5xx.
        case unreachable(String)
        /// The server refused the request itself; retrying cannot help.
        case refused(String)

        public var shouldQueue: Bool { if case .unreachable = self { true } else { false } }
    }

    /// Calls `completion` on the loop once every server has answered or failed.
    public static func purge(_ batches: [String: [String]], caFile: String?, loop: EventLoop,
                      completion: @escaping ([String: Outcome]) -> Void) {
        var outcomes: [String: Outcome] = [:]
        var waiting = batches.count
        guard waiting > 0 else { return completion([:]) }
        for (server, ids) in batches {
            purge(ids, at: server, caFile: caFile, loop: loop) { outcome in
                outcomes[server] = outcome
                waiting -= 1
                if waiting == 0 { completion(outcomes) }
            }
        }
    }

    /// Runs its own event loop until every purge has finished.
    public static func purgeNow(_ batches: [String: [String]], caFile: String?) -> [String: Outcome] {
        guard !batches.isEmpty else { return [:] }
        do {
            let loop = try EventLoop()
            var result: [String: Outcome] = [:]
            purge(batches, caFile: caFile, loop: loop) { outcomes in
                result = outcomes
                loop.stop()
            }
            loop.run()
            return result
        } catch {
            return batches.mapValues { _ in .unreachable("cannot start: \(error)") }
        }
    }

    private static func purge(_ ids: [String], at server: String, caFile: String?, loop: EventLoop,
                              completion: @escaping (Outcome) -> Void) {
        guard let url = ServerURL(server) else { return completion(.refused("'\(server)' is not a server URL")) }
        let http: HTTPClient
        do {
            http = HTTPClient(connector: try Connector(loop: loop, server: url, caFile: caFile))
        } catch {
            return completion(.unreachable(shortReason(error)))
        }
        var chunks = Deque(stride(from: 0, to: ids.count, by: 100).map { Array(ids[$0..<min($0 + 100, ids.count)]) })
        func next() {
            guard let chunk = chunks.popFirst() else {
                http.close()
                return completion(.purged)
            }
            http.send(RoomAPI.purgeRequest(deviceIDs: chunk, authority: http.authority), timeout: .seconds(10)) { result in
                switch result {
                case .failure(let error):
                    http.close()
                    completion(.unreachable(shortReason(error)))
                case .success(let response) where response.status == 200:
                    next()
                case .success(let response):
                    http.close()
                    let outcome = "HTTP \(response.status)"
                    completion(RoomAPI.isTransient(response) ? .unreachable(outcome) : .refused(outcome))
                }
            }
        }
        next()
    }

    /// The cause without advice on starting a server (the purge is not the user's main task).
    private static func shortReason(_ error: ClientError) -> String {
        switch error {
        case .unreachable(_, let reason), .tls(_, let reason): return reason
        default: return error.message
        }
    }
}
