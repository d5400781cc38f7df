/// The web client's hand-written files (no framework, no build step, no
/// third-party resource), in `Web/Assets/` and embedded at build time. Peer
/// text only ever reaches the page through `textContent`; the
/// Content-Security-Policy forbids inline script and style.
///
/// - `index.html` (`/` and `/j/CODE`): every control has a label; the
///   message list is a live region; the status line says in words what
///   colour never has to.
/// - `app.css`: one column that fits a phone; state is always also said in
///   words or shapes (borders, prefixes), never by colour alone.
/// - `app.js`: the whole client. It speaks WireProtocol.md like chatcli:
///   REST to pair, the signaling socket, `chat` for text and `ctl` for
///   names, verification and delivery (§4b); safety words as `SAS.swift`.
/// - `sas-words.js`: chatcli's safety-word list; a test checks it equals
///   `SAS.wordList` word for word.
/// - `code-words.js`: the words of a code's secret part; a test checks it
///   equals `CodeSecret.words`.
/// - `cpace.js`: the code's PAKE as chatcli runs it (`Sources/PAKE`):
///   ristretto255, SHA-512 and HMAC in plain JavaScript, and the exchange on
///   `ctl`; the browser tests run the CPace draft's vectors through it.
/// - `icon.svg`, so the browser does not ask for a favicon that is not there.
///
/// Tools/lib/lint-assets checks the scripts with eslint. The scripts load
/// with `defer`, in order: the word lists, `cpace.js`, then `app.js`.
public enum WebPage {
    static let html = text(PackageResources.index_html)
    static let css = text(PackageResources.app_css)
    static let script = text(PackageResources.app_js)
    static let sasWords = text(PackageResources.sas_words_js)
    static let codeWords = text(PackageResources.code_words_js)
    static let cpace = text(PackageResources.cpace_js)
    static let icon = text(PackageResources.icon_svg)

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
