extension WebPage {
    /// `/app.js`: the whole client. It speaks WireProtocol.md like chatcli:
    /// REST to pair, the signaling socket, `chat` for text and `ctl` for
    /// names, verification and delivery (§4b); safety words as `SAS.swift`.
    /// One script, kept in Swift files by concern: the page, safety words
    /// and delivery (here), pairing and the connection
    /// (`WebPage+ScriptConnection`), file transfers (`WebPage+ScriptFiles`),
    /// endings and wiring (`WebPage+ScriptWiring`).
    static let script = [scriptPage, scriptConnection, scriptFiles, scriptWiring].joined(separator: "\n")

    /// What the person sees, safety words, SHA-256 and delivery (§4b).
    static let scriptPage = #"""
'use strict';
// chatcli web client: the same wire contract as chatcli (WireProtocol.md):
// REST to pair, the signaling WebSocket, a WebRTC data channel `chat` for
// text and `ctl` for names, verification and delivery (§4b).
// Peer text only ever reaches the page as text (textContent).
(() => {
  const $ = (id) => document.getElementById(id);
  const MAX_MESSAGE_BYTES = 262144;
  const HOLD_LIMIT_MS = 3000;
  const params = new URLSearchParams(location.search);
  const relayOnly = params.has('relay');

  const randomHex = (bytes) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
  const utf8Length = (text) => new TextEncoder().encode(text).length;

  // ---- what the person sees -------------------------------------------

  function setStatus(text, state) {
    $('status').textContent = text;
    if (state) document.body.dataset.state = state;
  }

  function show(section) {
    for (const id of ['start', 'invite', 'chat']) $(id).hidden = !section.includes(id);
  }

  function fail(text) {
    $('error').textContent = text;
    $('error').hidden = false;
    setStatus('Not connected.', 'failed');
    $('again').hidden = false;
  }

  function timeNow() {
    const d = new Date();
    const el = document.createElement('time');
    el.dateTime = d.toISOString();
    el.textContent = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    return el;
  }

  function addLine(kind, who, text) {
    const li = document.createElement('li');
    li.className = kind;
    li.append(timeNow());
    if (who !== null) {
      const w = document.createElement('span');
      w.className = 'who';
      w.textContent = who + ':';
      li.append(w);
    }
    const t = document.createElement('span');
    t.className = 'text';
    t.textContent = text;
    li.append(t);
    const list = $('messages');
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.append(li);
    if (atBottom || kind === 'mine') list.scrollTop = list.scrollHeight;
  }
  const note = (text) => addLine('note', null, text);

  // A display name as chatcli cleans it: no controls or invisible format
  // characters, whitespace runs made one space, at most 32 characters.
  function cleanName(raw) {
    if (typeof raw !== 'string') return null;
    const visible = raw.replace(/[\p{Cc}\p{Cf}]/gu, ' ').split(/\s+/u).filter(Boolean).join(' ');
    const name = Array.from(visible).slice(0, 32).join('').trim();
    return name || null;
  }

  // ---- safety words (Sources/DTLS/SAS.swift, byte for byte) ------------

  function fingerprintOf(sdp) {
    const m = /^a=fingerprint:(\S+)[ \t]+([0-9A-Fa-f:]+)\s*$/m.exec(sdp || '');
    if (!m) return null;
    const bytes = m[2].split(':').map((h) => parseInt(h, 16));
    if (bytes.some((b) => Number.isNaN(b))) return null;
    return { algorithm: m[1].toLowerCase(), bytes };
  }

  function encodeFingerprint(f) {
    const name = new TextEncoder().encode(f.algorithm);
    return [name.length & 0xff, ...name, f.bytes.length & 0xff, ...f.bytes];
  }

  function precedes(a, b) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i];
    return a.length < b.length;
  }

  // WebCrypto exists only in secure contexts (https, localhost) and hashes
  // only whole buffers; FIPS 180-4 below hashes a stream (file transfers).
  const K = [];
  for (let n = 2; K.length < 64; n++) {
    let prime = true;
    for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }
    if (prime) K.push(((Math.cbrt(n) % 1) * 0x100000000) >>> 0);
  }
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  function compress(H, W, view, off) {
    for (let t = 0; t < 16; t++) W[t] = view.getUint32(off + 4 * t);
    for (let t = 16; t < 64; t++) {
      const s0 = rotr(W[t - 15], 7) ^ rotr(W[t - 15], 18) ^ (W[t - 15] >>> 3);
      const s1 = rotr(W[t - 2], 17) ^ rotr(W[t - 2], 19) ^ (W[t - 2] >>> 10);
      W[t] = (W[t - 16] + s0 + W[t - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, h] = H;
    for (let t = 0; t < 64; t++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + W[t]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      h = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, h].forEach((v, i) => { H[i] = (H[i] + v) >>> 0; });
  }
  function hasher() {
    const H = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    const W = new Uint32Array(64), tail = new Uint8Array(64), tailView = new DataView(tail.buffer);
    let fill = 0, total = 0;
    return {
      update(bytes) {
        total += bytes.length;
        let i = 0;
        if (fill) {
          i = Math.min(64 - fill, bytes.length);
          tail.set(bytes.subarray(0, i), fill);
          fill += i;
          if (fill < 64) return;
          compress(H, W, tailView, 0);
          fill = 0;
        }
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        for (; i + 64 <= bytes.length; i += 64) compress(H, W, view, i);
        tail.set(bytes.subarray(i));
        fill = bytes.length - i;
      },
      // The digest so far; the hash goes on.
      digest() {
        const out = H.slice(), padded = new Uint8Array(((fill + 9 + 63) >> 6) << 6), view = new DataView(padded.buffer);
        padded.set(tail.subarray(0, fill));
        padded[fill] = 0x80;
        view.setUint32(padded.length - 8, Math.floor(total / 0x20000000));
        view.setUint32(padded.length - 4, (total << 3) >>> 0);
        for (let off = 0; off < padded.length; off += 64) compress(out, W, view, off);
        const bytes = new Uint8Array(32);
        out.forEach((v, i) => new DataView(bytes.buffer).setUint32(4 * i, v));
        return bytes;
      },
    };
  }

  async function sha256(bytes) {
    if (self.crypto && crypto.subtle) return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    const h = hasher();
    h.update(bytes);
    return h.digest();
  }

  async function safetyWords(local, remote) {
    const ea = encodeFingerprint(local), eb = encodeFingerprint(remote);
    const ordered = precedes(ea, eb) ? [ea, eb] : [eb, ea];
    const input = new Uint8Array([...new TextEncoder().encode('chatcli SAS v1'), ...ordered[0], ...ordered[1]]);
    const digest = await sha256(input);
    return Array.from(digest.slice(0, 5), (b) => self.SAS_WORDS[b]).join(' ');
  }

  // ---- delivery (WireProtocol §4b): exactly once, in order -------------

  const outbox = { epoch: randomHex(8), nextSeq: 1, entries: [], base: 1 };
  const inbox = { shown: new Map(), peerSendsHello: false, hello: null, received: 0, held: [], holding: false, holdTimer: null };
  let peerSpeaksDelivery = false;

  function inboxOpened() {
    inbox.hello = null; inbox.received = 0; inbox.held = [];
    clearTimeout(inbox.holdTimer);
    inbox.holding = inbox.peerSendsHello;
  }

  function admit(text, seq, epoch) {
    if (seq <= (inbox.shown.get(epoch) || 0)) return;   // shown before, on an earlier connection
    inbox.shown.set(epoch, seq);
    peerText(text);
    sendControl({ type: 'ack', epoch, seq });
  }

  function inboxReceive(text) {
    const position = inbox.received++;
    if (inbox.hello) return admit(text, inbox.hello.next + position, inbox.hello.epoch);
    if (inbox.holding) {
      if (inbox.held.length === 0) inbox.holdTimer = setTimeout(releaseHeld, HOLD_LIMIT_MS);
      inbox.held.push(text);
      return;
    }
    peerText(text);
  }

  function inboxHello(epoch, next) {
    if (inbox.hello) return;
    inbox.hello = { epoch, next };
    inbox.peerSendsHello = true;
    clearTimeout(inbox.holdTimer);
    const held = inbox.held, wasHolding = inbox.holding;
    inbox.held = []; inbox.holding = false;
    if (!wasHolding || held.length === 0) {
      const last = next + inbox.received - 1;
      if (inbox.received > 0 && last > (inbox.shown.get(epoch) || 0)) {
        inbox.shown.set(epoch, last);
        sendControl({ type: 'ack', epoch, seq: last });
      }
      return;
    }
    held.forEach((text, position) => admit(text, next + position, epoch));
  }

  function releaseHeld() {
    const held = inbox.held;
    inbox.held = []; inbox.holding = false;
    held.forEach(peerText);
  }

"""#
}
