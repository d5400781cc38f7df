/// The web client's hand-written files (no framework, no build step, no
/// third-party resource). Peer text only ever reaches the page through
/// `textContent`; the Content-Security-Policy forbids inline script and style.
public enum WebPage {
    /// `/` and `/j/CODE`. Every control has a label; the message list is a
    /// live region; the status line says in words what colour never has to.
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>chatcli</title>
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/app.css">
<script src="/sas-words.js" defer></script>
<script src="/app.js" defer></script>
</head>
<body>
<header>
  <h1>chatcli</h1>
  <p id="status" role="status" aria-live="polite">Loading…</p>
</header>
<main>
  <form id="name-form">
    <label for="name">Your name (optional, shown to your peer)</label>
    <input id="name" name="name" maxlength="32" autocomplete="nickname">
  </form>
  <section id="start" aria-labelledby="start-title" hidden>
    <h2 id="start-title">Start a private chat</h2>
    <p>End-to-end encrypted and peer to peer: the server only introduces you; it never sees a message.</p>
    <button id="create" type="button">Create a chat</button>
    <form id="join-form">
      <label for="join-code">Or join with a 6-digit code</label>
      <input id="join-code" name="code" inputmode="numeric" autocomplete="off" pattern="[0-9 ]*" maxlength="7" required>
      <button id="join" type="submit">Join</button>
    </form>
  </section>
  <section id="invite" aria-labelledby="invite-title" hidden>
    <h2 id="invite-title">Your code</h2>
    <p class="code" id="code"></p>
    <p>Your peer opens this link, or runs <kbd>chatcli join <span id="code-cli"></span></kbd>:</p>
    <p><a id="link" href="/"></a></p>
    <button id="copy" type="button">Copy link</button>
  </section>
  <section id="chat" aria-labelledby="chat-title" hidden>
    <h2 id="chat-title">Chat with <span id="peer-name">your peer</span></h2>
    <dl class="facts">
      <dt>Connection</dt><dd id="path">not yet connected</dd>
      <dt>Safety words</dt><dd id="sas">(once connected)</dd>
    </dl>
    <p id="sas-hint" hidden>Read the safety words to your peer by voice; if theirs differ, someone is in the middle.
      <button id="verify" type="button">They match</button></p>
    <ol id="messages" role="log" aria-live="polite" aria-label="Messages"></ol>
    <form id="send-form">
      <label for="message">Message</label>
      <textarea id="message" name="message" rows="2" required></textarea>
      <button id="send" type="submit">Send</button>
    </form>
    <form id="file-form">
      <label for="file">Send a file (or drop it here)</label>
      <input id="file" name="file" type="file" multiple>
    </form>
  </section>
  <p id="error" role="alert" hidden></p>
  <button id="leave" type="button" hidden>Leave</button>
  <a id="again" href="/" hidden>Start another chat</a>
</main>
<noscript><p>This chat needs JavaScript (it runs WebRTC in your browser).</p></noscript>
</body>
</html>

"""#

    /// `/icon.svg`, so the browser does not ask for a favicon that is not there.
    static let icon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#222"/><path d="M3 4h10v6H7l-3 3v-3H3z" fill="#fff"/></svg>

"""#
}
