import Redis
import Runtime

/// A cluster's one relay secret (``ClusterRelaySecret``): offered at every
/// heartbeat, adopted from what Redis holds.
extension SignalingService {
    func offerRelaySecret() {
        guard let cluster else { return }
        let commands = ClusterRelaySecret.offer(relaySecret, prefix: cluster.prefix)
        // The SET's own answer says nothing the GET does not.
        cluster.commands.send(commands[0]) { _ in }
        cluster.commands.send(commands[1]) { [weak self] result in
            guard let self, case .success(let reply) = result else { return }
            let found = ClusterRelaySecret.parse(reply)
            defer { self.relaySecretUnusable = found == .unusable }
            switch found {
            case .secret(let secret): self.adoptRelaySecret(secret)
            case .missing: break
            case .unusable:
                guard !self.relaySecretUnusable else { return }
                self.log.write("relay_secret_unusable", [
                    "key": ClusterRelaySecret.key(prefix: cluster.prefix),
                    "action": "delete it so the instances agree on a new one; meanwhile each relay accepts only its own credentials",
                ])
            }
        }
    }

    /// Issues credentials with `secret` from now on, and has the relay
    /// accept it (and, for credentials already issued, the one it replaces
    /// for as long as they live).
    func adoptRelaySecret(_ secret: [UInt8]) {
        guard secret != relaySecret || !relaySecretIsShared, let router = router as? ClusterRouter else { return }
        let lifetime = router.rest.iceServers.credentialLifetimeSeconds
        // The secret drawn at start was never issued: it needs no grace.
        let retiredUntil = relaySecretIsShared ? now.seconds + lifetime : 0
        log.write("relay_secret", ["state": relaySecretIsShared ? "replaced" : "shared"])
        relaySecret = secret
        relaySecretIsShared = true
        router.rest.iceServers.turnSecret = secret
        relay?.core.replaceSecret(secret, retiredUntil: retiredUntil)
    }
}
