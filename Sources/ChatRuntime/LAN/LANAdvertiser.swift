import ChatClient
import MDNS
import Runtime

/// Advertises a waiting chat once its code exists (`pending`), and
/// withdraws it with goodbyes once someone joined, the room closed, or
/// chatcli exits, so `chatcli lan` elsewhere drops it at once.
public final class LANAdvertiser {
    let driver: MDNSDriver
    let name: String
    let port: UInt16
    var advertised = false

    public init(driver: MDNSDriver, name: String, port: UInt16) {
        self.driver = driver
        self.name = name
        self.port = port
    }

    public func handle(_ update: SessionUpdate) {
        switch update {
        case .pending(let code, _, _):
            // The proof is of the locator alone: the secret words never leave the machine.
            let locator = PairingCode(userInput: code)?.locator ?? code
            guard !advertised, let proof = LANProof.make(code: locator) else { return }
            advertised = true
            driver.advertise(LANService.instance(name: name, port: port, proof: proof), hostLabel: LANService.randomLabel())
        case .accepted, .closed, .joined, .group:
            withdraw()
        case .peerPinned:
            break
        }
    }

    public func withdraw() {
        guard advertised else { return }
        advertised = false
        driver.withdraw()
    }
}
