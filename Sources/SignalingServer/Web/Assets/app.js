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
  // `?relay`: connect only through the TURN relay. `?relay=udp`, `=tcp` or
  // `=tls`: only through the relay's URLs of that transport (RFC 7065:
  // `turn:` is UDP unless `?transport=tcp`, `turns:` is TLS), to check one.
  const relayOnly = params.has('relay');
  const relayTransport = ['udp', 'tcp', 'tls'].includes(params.get('relay')) ? params.get('relay') : null;
  // A code's secret words ride in the link's fragment (/j/123456#brave-calm),
  // which browsers never send. Read once, then gone from the address bar and
  // from this page's history entry before anything else runs; never put in
  // a request, a log line, the title or storage.
  const linkSecret = location.hash.length > 1 ? location.hash.slice(1) : null;
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);

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

  // ---- the code's secret part (Sources/PAKE/CodeSecret.swift) ---------

  // Two of the 256 code words, hyphens or spaces between them; null otherwise.
  function codeSecret(text) {
    let words;
    try { words = decodeURIComponent(String(text)).toLowerCase().split(/[-\s]+/).filter(Boolean); } catch (_) { return null; }
    return words.length === 2 && words.every((w) => self.CODE_WORDS.includes(w)) ? words.join('-') : null;
  }

  const randomSecret = () => Array.from(crypto.getRandomValues(new Uint8Array(2)), (b) => self.CODE_WORDS[b]).join('-');

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

  // ---- REST --------------------------------------------------------------

  async function api(method, path, body) {
    const response = await fetch(path, {
      method, cache: 'no-store', referrerPolicy: 'no-referrer',
      headers: body ? { 'Content-Type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    let data = null;
    try { data = await response.json(); } catch (_) { /* 204 or not JSON */ }
    return { status: response.status, data };
  }

  const chat = {
    code: null, roomId: null, deviceId: randomHex(16), name: null,
    ws: null, wsBackoff: 0, heartbeat: null, pongTimer: null, clientId: null,
    pc: null, iceServers: [], initiator: false, chatChannel: null, ctlChannel: null,
    pendingCandidates: [], remoteFingerprint: null, sas: null, verified: false,
    leaving: false, ended: false, connectedOnce: false, peerName: null, peerHere: false,
    // The code's PAKE (pake.js): the secret words, and what this connection proved.
    secret: null, typedSecret: false, offerer: false, peerRunsPAKE: false, auth: null, exchange: null,
    pakeTimer: null, pakeRan: false, provenFingerprint: null, held: [], shown: null, toldUnproven: false,
    // Not proven by the code: held until the person compares the safety words and accepts them.
    awaitingAcceptance: false, acceptedFingerprint: null,
    // A group room (WireProtocol §2b): this member's id, the room's size and one pair per other member.
    group: null,
  };

  async function loadICEServers() {
    try {
      const query = chat.roomId ? `?roomid=${chat.roomId}&deviceId=${chat.deviceId}` : '';
      const r = await api('GET', '/api/ice-servers' + query);
      if (r.status === 200 && r.data && Array.isArray(r.data.iceServers)) chat.iceServers = onlyTransport(r.data.iceServers);
    } catch (_) { /* STUN-less: host and peer-reflexive candidates still work */ }
  }

  function transportOf(url) {
    if (/^turns:/i.test(url)) return 'tls';
    if (!/^turn:/i.test(url)) return null;
    return /[?&]transport=tcp(&|$)/i.test(url) ? 'tcp' : 'udp';
  }

  // The servers' URLs of `relayTransport` alone (none but TURN), or all of them.
  function onlyTransport(servers) {
    if (!relayTransport) return servers;
    return servers
      .map((s) => ({ ...s, urls: [].concat(s.urls || []).filter((u) => typeof u === 'string' && transportOf(u) === relayTransport) }))
      .filter((s) => s.urls.length > 0);
  }

  function randomCode() {
    const limit = 4294000000;   // a multiple of 10^6 below 2^32: no modulo bias
    for (;;) {
      const [n] = crypto.getRandomValues(new Uint32Array(1));
      if (n < limit) return String(n % 1000000).padStart(6, '0');
    }
  }

  async function create() {
    const group = $('group').checked, max = Number($('group-max').value);
    if (group && !(Number.isInteger(max) && max >= 3 && max <= 8)) {
      $('group-max').setAttribute('aria-invalid', 'true');
      setStatus('A group holds 3 to 8 people: choose a size in that range.');
      return;
    }
    $('create').disabled = true;
    chat.name = cleanName($('name').value);
    let seat = null;
    setStatus('Creating a chat…', 'creating');
    let created = false;
    try {
      for (let attempt = 0; attempt < 10 && !created; attempt++) {
        chat.code = randomCode();
        const r = await api('POST', '/api/rooms', { joinid: chat.code, expiresInSeconds: 3600, client1: chat.deviceId, ...(group ? { group: true, max } : {}) });
        if (r.status === 201 || r.status === 200) created = true;
        else if (r.status !== 409) return fail(`The server refused to create a chat (${(r.data && r.data.error) || r.status}).`);
        if (created && group) {
          if (!r.data || r.data.group !== true || !isMemberId(r.data.memberId)) return fail('This server does not make group chats; create a two-person chat instead.');
          seat = { memberId: r.data.memberId, max: Number.isInteger(r.data.max) ? r.data.max : max };
        }
      }
    } catch (_) {
      return fail('Cannot reach the server. Check your connection and reload the page.');
    }
    if (!created) return fail('Could not find a free code; try again in a moment.');
    chat.secret = randomSecret();
    const link = `${location.origin}/j/${chat.code}#${chat.secret}`;
    $('code').textContent = `${chat.code}-${chat.secret}`;
    $('code-cli').textContent = `${chat.code}-${chat.secret}`;
    $('link').textContent = link;
    $('link').href = link;
    show(['invite']);
    $('leave').hidden = false;
    setStatus(seat ? `Waiting for others to join (up to ${seat.max} people)…` : 'Waiting for your peer to join…', 'waiting');
    $('copy').focus();
    while (!chat.roomId && !chat.leaving) {
      let r;
      try {
        r = await api('POST', '/api/rooms/check?wait=25', { joinid: chat.code, client1: chat.deviceId });
      } catch (_) {
        await new Promise((done) => setTimeout(done, 2000));
        continue;
      }
      if (r.status === 200 && r.data && r.data.roomid) chat.roomId = r.data.roomid;
      else if (r.status === 404) return fail('The code expired before anyone joined.');
      else if (r.status !== 204) await new Promise((done) => setTimeout(done, 1000));
    }
    if (chat.leaving) return;
    if (seat) return startGroup(seat, true);
    chat.initiator = true;
    await startChat();
  }

  // `text`: 6 digits, then perhaps the secret words ("123456-brave-calm");
  // `words`: the secret words from the link's fragment, if any.
  async function join(text, words) {
    const m = /^([0-9]{3}) ?([0-9]{3})(?:[-\s]+(\S.*))?$/.exec(text.trim());
    if (!m) {
      $('join-code').setAttribute('aria-invalid', 'true');
      return fail('A code is 6 digits and two words, like 123456-brave-calm.');
    }
    const code = m[1] + m[2];
    words = m[3] !== undefined ? m[3] : words;
    if (words !== null && words !== undefined) {
      chat.secret = codeSecret(words);
      if (!chat.secret) return fail('The words after the six digits are not a chatcli code: check them with your peer, or ask for a new link.');
      chat.typedSecret = true;   // never falls back to a chat the code did not prove
    }
    chat.code = code;
    chat.name = cleanName($('name').value);
    setStatus('Joining…', 'joining');
    show([]);
    let r;
    try {
      r = await api('POST', '/api/rooms/accept', { joinid: code, client2: chat.deviceId });
    } catch (_) {
      return fail('Cannot reach the server. Check your connection and reload the page.');
    }
    if (r.status === 200 && r.data && r.data.roomid) {
      chat.roomId = r.data.roomid;
      history.replaceState(null, '', '/');   // the code is spent; keep it out of history
      if (r.data.group === true) {
        if (!isMemberId(r.data.memberId)) return fail('The server\'s answer for this group is malformed; ask for a new code.');
        return startGroup({ memberId: r.data.memberId, max: Number.isInteger(r.data.max) ? r.data.max : 8 }, false);
      }
      return startChat();
    }
    if (r.status === 409 && r.data && r.data.error === 'room_full') return fail('This group chat is full: ask someone in it to make a bigger one.');
    const reasons = {
      404: 'No chat waits with this code (it may have expired). Ask for a new one.',
      409: 'Someone already joined this chat.',
      429: 'Too many wrong codes from your address; wait a minute and try again.',
    };
    fail(reasons[r.status] || `The server refused the code (${(r.data && r.data.error) || r.status}).`);
  }

  async function startChat() {
    show(['chat']);
    $('leave').hidden = false;
    setStatus('Waiting for your peer…', 'signaling');
    await loadICEServers();
    connectSignaling();
    $('message').focus();
  }

  // ---- signaling WebSocket (WireProtocol §2) ----------------------------

  function send(message) {
    if (chat.ws && chat.ws.readyState === WebSocket.OPEN) chat.ws.send(JSON.stringify(message));
  }

  function connectSignaling() {
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
    chat.ws = ws;
    ws.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      if (m && typeof m.type === 'string') signal(m).catch((err) => console.warn('signaling', err));
    };
    ws.onopen = () => {
      clearInterval(chat.heartbeat);
      // Browsers cannot send WebSocket pings: JSON ping every 25 s, pong due within 10 s.
      chat.heartbeat = setInterval(() => {
        send({ type: 'ping' });
        clearTimeout(chat.pongTimer);
        chat.pongTimer = setTimeout(() => ws.close(), 10000);
      }, 25000);
    };
    ws.onclose = () => {
      clearInterval(chat.heartbeat);
      clearTimeout(chat.pongTimer);
      if (chat.ws !== ws || chat.leaving || chat.ended) return;
      const ceiling = Math.min(30000, 500 * 2 ** Math.min(chat.wsBackoff++, 10));
      if (!chat.connectedOnce || !chat.pc || chat.pc.connectionState !== 'connected') setStatus('Reconnecting to the server…', 'reconnecting');
      setTimeout(connectSignaling, Math.random() * ceiling);
    };
  }

  // A group's member presents its device (WireProtocol §2b).
  const joinRoom = () => send({ type: 'join_room', roomId: chat.roomId, ...(chat.group && { deviceId: chat.deviceId }) });

  async function signal(m) {
    if (chat.group && !['connected', 'pong', 'room_full', 'error'].includes(m.type)) return groupSignal(m);
    switch (m.type) {
      case 'connected':
        chat.clientId = m.clientId;
        joinRoom();
        break;
      case 'pong':
        clearTimeout(chat.pongTimer);
        break;
      case 'room_joined':
        chat.wsBackoff = 0;
        if (!m.ready && !chat.connectedOnce) setStatus('Waiting for your peer…', 'signaling');
        break;
      case 'room_ready':
        chat.wsBackoff = 0;
        chat.initiator = m.isInitiator === true;
        if (chat.peerHere === false && chat.connectedOnce) note('Your peer is back.');
        chat.peerHere = true;
        if (!chat.connectedOnce) setStatus('Your peer is here; connecting…', 'connecting');
        if (chat.initiator) await makeOffer();
        break;
      case 'room_full':
        setTimeout(joinRoom, 1000 + Math.random() * 1000);
        break;
      case 'webrtc_offer':
        if (typeof m.sdp === 'string') await takeOffer(m.sdp);
        break;
      case 'webrtc_answer':
        if (typeof m.sdp === 'string') await takeAnswer(m.sdp);
        break;
      case 'ice_candidate':
        await takeCandidate(m.candidate);
        break;
      case 'peer_left':
        peerLeft('server');
        break;
      case 'peer_disconnected':
        chat.peerHere = false;
        note('Your peer lost its connection; what you type waits for them to come back.');
        break;
      case 'left_room':
        break;
      case 'error':
        if (m.error === 'room_not_found' || m.error === 'not_a_member') {
          chat.ended = true;
          closePeer();
          if (chat.group) groupPairs().forEach(pairClose);
          fail('This chat no longer exists on the server.');
        }
        break;
    }
  }

  // ---- WebRTC ---------------------------------------------------------------

  // A new connection (a new DTLS session): the code is checked on it again.
  function newPeerConnection(offerer) {
    closePeer();
    const pc = new RTCPeerConnection({ iceServers: chat.iceServers, iceTransportPolicy: relayOnly ? 'relay' : 'all' });
    chat.pc = pc;
    chat.pendingCandidates = [];
    chat.remoteFingerprint = null;
    chat.offerer = offerer;
    pakeReset();
    inboxOpened();
    pc.onicecandidate = (e) => {
      if (chat.pc !== pc) return;
      send({ type: 'ice_candidate', candidate: candidateOf(e.candidate) });
    };
    pc.onconnectionstatechange = () => { if (chat.pc === pc) connectionChanged(pc); };
    pc.ondatachannel = (e) => { if (chat.pc === pc) attach(e.channel); };
    return pc;
  }

  const candidateOf = (c) => (c && c.candidate ? { candidate: c.candidate, sdpMLineIndex: c.sdpMLineIndex ?? 0, sdpMid: c.sdpMid ?? '0' }
    : { candidate: '', sdpMLineIndex: 0, sdpMid: '0' });

  function closePeer() {
    const pc = chat.pc, channels = [chat.chatChannel, chat.ctlChannel];
    chat.pc = null;
    chat.chatChannel = null;
    chat.ctlChannel = null;
    for (const ch of channels) if (ch) try { ch.close(); } catch (_) { /* closed */ }
    if (pc) pc.close();
  }

  async function makeOffer() {
    let pc = chat.pc;
    const restart = pc && pc.signalingState !== 'closed';
    if (!restart) {
      pc = newPeerConnection(true);
      attach(pc.createDataChannel('chat'));
      attach(pc.createDataChannel('ctl'));
    }
    if (pc.signalingState === 'have-local-offer') await pc.setLocalDescription({ type: 'rollback' });
    const offer = await pc.createOffer(restart ? { iceRestart: true } : {});
    await pc.setLocalDescription(offer);
    send({ type: 'webrtc_offer', sdp: announced(pc.localDescription.sdp) });
  }

  // These three serve a group's pair `p` (its signaling addressed `to` its member) as well as the two-person chat.
  async function takeOffer(sdp, p) {
    const h = p || chat, fingerprint = fingerprintOf(sdp);
    let pc = h.pc;
    // A new peer process (a resumed chatcli) has a new certificate: only a new connection can talk to it.
    const sameCert = pc && h.remoteFingerprint && fingerprint && fingerprint.bytes.join() === h.remoteFingerprint.bytes.join();
    if (!pc || !sameCert || pc.signalingState === 'closed') pc = p ? pairConnection(p, false) : newPeerConnection(false);
    if (pc.signalingState === 'have-local-offer') await pc.setLocalDescription({ type: 'rollback' });
    await pc.setRemoteDescription({ type: 'offer', sdp });
    h.remoteFingerprint = fingerprint;
    h.peerRunsPAKE = runsPAKE(sdp);
    await flushCandidates(pc, h);
    await pc.setLocalDescription(await pc.createAnswer());
    send({ type: 'webrtc_answer', ...(p && { to: p.id }), sdp: announced(pc.localDescription.sdp) });
  }

  async function takeAnswer(sdp, p) {
    const h = p || chat, pc = h.pc;
    if (!pc || pc.signalingState !== 'have-local-offer') return;
    const fingerprint = fingerprintOf(sdp);
    if (h.remoteFingerprint && fingerprint && fingerprint.bytes.join() !== h.remoteFingerprint.bytes.join()) {
      // The peer restarted as a new process: start over with a fresh connection.
      if (p) { pairClose(p); return pairOffer(p); }
      closePeer();
      return makeOffer();
    }
    await pc.setRemoteDescription({ type: 'answer', sdp });
    h.remoteFingerprint = fingerprint;
    h.peerRunsPAKE = runsPAKE(sdp);
    await flushCandidates(pc, h);
  }

  async function takeCandidate(c, h = chat) {
    if (!c || typeof c !== 'object') return;
    const text = typeof c.candidate === 'string' ? c.candidate.replace(/^a=/, '') : '';
    const init = text ? { candidate: text, sdpMid: c.sdpMid ?? '0', sdpMLineIndex: c.sdpMLineIndex ?? 0 } : null;
    const pc = h.pc;
    if (!pc || !pc.remoteDescription) { if (h.pendingCandidates.length < 1024) h.pendingCandidates.push(init); return; }
    await addCandidate(pc, init);
  }

  async function addCandidate(pc, init) {
    try {
      if (init) await pc.addIceCandidate(init);
      else await pc.addIceCandidate();   // end of candidates
    } catch (err) { console.warn('candidate', err); }
  }

  async function flushCandidates(pc, h = chat) {
    const pending = h.pendingCandidates;
    h.pendingCandidates = [];
    for (const init of pending) await addCandidate(pc, init);
  }

  async function connectionChanged(pc) {
    switch (pc.connectionState) {
      case 'connected': {
        const path = await pathOf(pc);
        const local = fingerprintOf(pc.localDescription && pc.localDescription.sdp);
        const remote = fingerprintOf(pc.remoteDescription && pc.remoteDescription.sdp);
        if (local && remote) chat.sas = await safetyWords(local, remote);
        chat.shown = { path };
        if (chat.auth === null && !chat.ended && !chat.awaitingAcceptance) setStatus(chat.secret ? 'Connected; checking the code…' : 'Connected; opening the chat…', 'checking');
        showSafetyWords();
        showConnected();
        break;
      }
      case 'disconnected':
        setStatus('Connection lost; reconnecting…', 'reconnecting');
        break;
      case 'failed':
        setStatus('Connection lost; reconnecting…', 'reconnecting');
        if (chat.initiator && !chat.leaving) makeOffer().catch(() => {});   // ICE restart, as chatcli does
        break;
    }
  }

  // Said once the connection is up and the code settled (whichever comes last).
  function showConnected() {
    if (!chat.shown || chat.auth === null || chat.ended) return;
    const { path } = chat.shown;
    chat.shown = null;
    const how = path.relay ? 'through a relay' : 'directly';
    const byCode = { pake: ', verified by code', words: ', verified by the safety words' }[chat.auth] || '';
    $('path').textContent = `${path.relay ? 'relay' : 'direct'} (${path.local} ↔ ${path.remote})`;
    $('path').dataset.path = path.type;
    $('path').dataset.relayProtocol = path.relayProtocol;
    $('sas').textContent = chat.sas || 'unavailable';
    $('auth').textContent = {
      pake: 'verified by code: your peer typed the same code', words: 'verified: you compared the safety words',
    }[chat.auth] || 'not proven by the code: compare the safety words';
    $('sas-hint').hidden = !chat.sas || chat.auth !== 'none';
    setStatus(`Connected ${how}, end-to-end encrypted${byCode}.`, 'connected');
    note(chat.connectedOnce ? `Reconnected ${how}${byCode}; nothing was lost.` : `Connected ${how}${byCode}. Safety words: ${chat.sas}`);
    chat.connectedOnce = true;
  }

  // The selected candidate pair, as chatcli reports it: `relay` when either
  // side is relayed, otherwise the remote candidate's type.
  async function pathOf(pc) {
    const stats = await pc.getStats();
    let pair = null;
    stats.forEach((s) => {
      if (s.type === 'transport' && s.selectedCandidatePairId) pair = stats.get(s.selectedCandidatePairId);
    });
    if (!pair) stats.forEach((s) => { if (s.type === 'candidate-pair' && (s.selected || (s.nominated && s.state === 'succeeded'))) pair = pair || s; });
    const local = pair && stats.get(pair.localCandidateId);
    const remote = pair && stats.get(pair.remoteCandidateId);
    const kind = (c) => (c && (c.candidateType || c.type)) || 'unknown';
    const where = (c) => (c ? `${kind(c)} ${c.address || c.ip || '?'}:${c.port}` : 'unknown');
    const relay = kind(local) === 'relay' || kind(remote) === 'relay';
    // How this end reaches its relay (udp, tcp or tls); empty when it does not relay.
    const relayProtocol = (kind(local) === 'relay' && local.relayProtocol) || '';
    return { relay, type: relay ? 'relay' : kind(remote), local: where(local), remote: where(remote), relayProtocol };
  }

  // ---- data channels ----------------------------------------------------

  function attach(channel) {
    if (channel.label === 'chat') {
      if (chat.chatChannel && chat.chatChannel.readyState === 'open') return;
      chat.chatChannel = channel;
      channel.onopen = () => { opened(); $('message').focus(); };
      channel.onmessage = (e) => { if (typeof e.data === 'string') chatReceived(e.data); };
      // The peer closed the channel (a stream reset, RFC 8831 §6.7): it left, whatever the server says.
      channel.onclose = () => { if (chat.chatChannel === channel && !chat.leaving) peerLeft('channel'); };
      if (channel.readyState === 'open') opened();
    } else if (channel.label === 'ctl') {
      if (chat.ctlChannel && chat.ctlChannel.readyState === 'open') return;
      chat.ctlChannel = channel;
      channel.onopen = ctlOpened;
      channel.onmessage = (e) => { if (typeof e.data === 'string') control(e.data); };
      if (channel.readyState === 'open') ctlOpened();
    } else if (channel.label === 'file') {
      if (chat.auth === null) channel.close();   // no file before the code is settled
      else receiveFile(channel);
    }
  }

  // A new connection: what the peer has not acknowledged goes again, oldest
  // first (a peer without delivery acks nothing: only what was never sent,
  // typed while the code was checked or before the peer came, goes).
  function opened() {
    if (chat.auth === null) return startPAKE();
    if (!peerSpeaksDelivery) outbox.entries = outbox.entries.filter((e) => !e.sent);
    outbox.base = outbox.entries.length ? outbox.entries[0].seq : outbox.nextSeq;
    outbox.helloSent = false;
    for (const entry of outbox.entries) { chat.chatChannel.send(entry.text); entry.sent = true; }
    if (chat.ctlChannel && chat.ctlChannel.readyState === 'open') ctlOpened();
  }

  function ctlOpened() {
    if (chat.auth === null) return startPAKE();
    if (!chat.chatChannel || chat.chatChannel.readyState !== 'open' || outbox.helloSent) return;
    outbox.helloSent = true;
    sendControl({ type: 'hello', delivery: 1, epoch: outbox.epoch, next: outbox.base });
    if (chat.name) sendControl({ type: 'name', name: chat.name });
  }

  function sendControl(message, p) {
    const ch = p ? p.ctlCh : chat.ctlChannel;
    if (ch && ch.readyState === 'open') ch.send(JSON.stringify(message));
  }

  function control(text) {
    if (text.length > 4096) return;
    let m;
    try { m = JSON.parse(text); } catch (_) { return; }
    if (!m || typeof m !== 'object') return;
    if (m.type === 'pake') return pakeMessage(m);
    if (chat.auth === null) {
      if (m.type !== 'hello' || !chat.secret || chat.awaitingAcceptance) return hold('ctl', text);
      peerWentOnWithoutPAKE();
      if (chat.auth === null) return;
    }
    switch (m.type) {
      case 'hello':
        if (typeof m.epoch === 'string' && Number.isInteger(m.next) && m.next >= 1) { peerSpeaksDelivery = true; inboxHello(m.epoch, m.next); }
        break;
      case 'ack':
        if (m.epoch === outbox.epoch && Number.isInteger(m.seq)) {
          peerSpeaksDelivery = true;
          outbox.entries = outbox.entries.filter((e) => e.seq > m.seq);
          if (chat.leaving) maybeFinishLeave();
        }
        break;
      case 'name': {
        const name = cleanName(m.name);
        if (!name || name === chat.peerName) break;
        note(chat.peerName ? `${chat.peerName} is now called ${name}.` : `Your peer is called ${name}.`);
        chat.peerName = name;
        $('peer-name').textContent = name;
        break;
      }
      case 'verified':
        if (typeof m.sas === 'string' && m.sas !== chat.sas) note(`Your peer marked different safety words as verified than yours. Someone may be in the middle: compare them again aloud, or leave.`);
        else note('Your peer verified the safety words: they read them aloud with you and they matched.');
        break;
    }
  }

  // ---- the code's PAKE on `ctl` (WireProtocol §4c, cpace.js) ------------
  //
  // With a secret (this page created the chat, or its link or the typed code
  // had the words), the page says so in its description (a=x-chatcli-pake)
  // and, once `chat` and `ctl` are open, runs CPace with the peer, bound to
  // the room and both certificates. Until it settles nothing typed is sent,
  // nothing received is shown, no file goes either way, and the delivery
  // `hello` waits; the `pake` messages therefore always precede it.

  const PAKE_DEADLINE_MS = 10000;

  function pakeReset() {
    clearTimeout(chat.pakeTimer);
    chat.pakeTimer = null; chat.auth = null; chat.exchange = null; chat.awaitingAcceptance = false; chat.held = []; chat.peerRunsPAKE = false;
  }

  const announced = (sdp) => (chat.secret ? sdp.replace(/(\r\n)?$/, '\r\n') + 'a=x-chatcli-pake\r\n' : sdp);
  const runsPAKE = (sdp) => /^a=x-chatcli-pake\s*$/m.test(sdp);

  // The raw SHA-256 certificate fingerprint of a description (the PAKE's binding).
  function certificate(description) {
    const m = /^a=fingerprint:sha-256[ \t]+([0-9A-Fa-f:]+)\s*$/mi.exec((description && description.sdp) || '');
    const bytes = m ? m[1].split(':').map((h) => parseInt(h, 16)) : [];
    return bytes.length === 32 && bytes.every((b) => b >= 0 && b <= 255) ? Uint8Array.from(bytes) : null;
  }

  // `h`: the two-person chat, or a group's pair (bound to that pair's certificates).
  function exchangeNow(h = chat) {
    if (h.exchange) return h.exchange;
    const pc = h.pc, local = pc && certificate(pc.localDescription), remote = pc && certificate(pc.remoteDescription);
    if (!chat.secret || !local || !remote || !chat.roomId) return null;
    h.exchange = self.CPace.handshake(h.offerer, `${chat.code}-${chat.secret}`, {
      roomId: chat.roomId, offererFingerprint: h.offerer ? local : remote, answererFingerprint: h.offerer ? remote : local,
    });
    return h.exchange;
  }

  function channelsOpen() {
    return chat.chatChannel && chat.chatChannel.readyState === 'open' && chat.ctlChannel && chat.ctlChannel.readyState === 'open';
  }

  // Both channels open: the code settles at once, or its PAKE starts (the offerer sends its share).
  function startPAKE() {
    if (chat.auth !== null || chat.ended || chat.awaitingAcceptance || !channelsOpen() || chat.pakeTimer !== null) return;
    if (!chat.secret || chat.pakeRan) {
      const remote = chat.pc && certificate(chat.pc.remoteDescription);
      const same = (fingerprint) => fingerprint && remote && self.CPace.equalBytes(remote, fingerprint);
      if (same(chat.provenFingerprint)) return release('pake');
      if (same(chat.acceptedFingerprint)) return release('words');
      if (chat.provenFingerprint || chat.acceptedFingerprint) return awaitAcceptance('Your peer reconnected with a new certificate, which nobody has checked.');
      return awaitAcceptance(chat.secret ? 'The code did not prove who your peer is on this connection.'
        : 'Your code had no secret words, so it does not prove who your peer is.');
    }
    if (!chat.peerRunsPAKE) return settlePAKE('unproven');
    chat.pakeTimer = setTimeout(pakeDeadline, PAKE_DEADLINE_MS);
    const exchange = exchangeNow();
    const first = exchange && chat.offerer ? exchange.start() : null;
    if (first) sendControl(first);
  }

  function pakeMessage(m) {
    if (!chat.secret) {
      // This side has only the digits; the peer's code has words.
      if (m.step === 'share') sendControl({ type: 'pake', step: 'unproven' });
      else if (m.step !== 'unproven') return;
      if (!chat.toldUnproven) note('Your peer\'s code has a secret part that you did not type, so the code does not prove who your peer is: compare the safety words.');
      chat.toldUnproven = true;
      return;
    }
    if (chat.auth !== null || chat.ended || chat.awaitingAcceptance) {
      if (m.step === 'failed' && chat.auth !== null) pakeFailed();
      return;
    }
    const exchange = exchangeNow();
    if (!exchange) return;
    const reply = exchange.receive(m);
    if (reply) sendControl(reply);
    if (exchange.outcome) settlePAKE(exchange.outcome);
  }

  // The peer's `hello` came first, or nothing within the deadline: it runs no PAKE.
  function peerWentOnWithoutPAKE() {
    if (!chat.secret || chat.auth !== null || chat.ended || chat.awaitingAcceptance) return;
    const exchange = exchangeNow();
    const reply = exchange && exchange.peerSkipped();
    if (reply) sendControl(reply);
    settlePAKE(exchange ? exchange.outcome : 'unproven');
  }

  function pakeDeadline() {
    chat.pakeTimer = null;
    peerWentOnWithoutPAKE();
  }

  function settlePAKE(outcome) {
    clearTimeout(chat.pakeTimer);
    chat.pakeTimer = null;
    chat.pakeRan = true;
    chat.exchange = null;
    if (outcome === 'verified') {
      chat.provenFingerprint = certificate(chat.pc && chat.pc.remoteDescription);
      release('pake');
    } else if (outcome === 'unproven' && !chat.typedSecret) {
      awaitAcceptance('Your peer did not prove the code\'s secret part (it may only know the six digits).');
    } else {
      pakeFailed();
    }
  }

  // Not proven by the code (no secret words, a peer that ran no PAKE, or a new
  // certificate): nothing flows either way until the person has compared the
  // safety words and pressed "They match" (or leaves).
  function awaitAcceptance(why) {
    clearTimeout(chat.pakeTimer);
    chat.pakeTimer = null;
    chat.awaitingAcceptance = true;
    document.body.dataset.auth = 'unproven';
    $('verify').disabled = false;
    note(`${why} Compare the safety words with your peer by voice, then press "They match" to start the chat, or leave.`);
    setStatus('Connected, not proven: compare the safety words.', 'unproven');
    showSafetyWords();
  }

  function showSafetyWords() {
    if (!chat.awaitingAcceptance) return;
    $('sas').textContent = chat.sas || '(once connected)';
    $('auth').textContent = 'not proven by the code: compare the safety words';
    $('sas-hint').hidden = !chat.sas;
  }

  // The person compared the safety words and they matched: this certificate is accepted.
  function accept() {
    chat.awaitingAcceptance = false;
    chat.acceptedFingerprint = certificate(chat.pc && chat.pc.remoteDescription);
    release('words');
  }

  // Settled: the connection is announced, then what was held flows both ways.
  function release(auth) {
    clearTimeout(chat.pakeTimer);
    chat.pakeTimer = null;
    chat.auth = auth;
    document.body.dataset.auth = auth;
    showConnected();
    const held = chat.held;
    chat.held = [];
    document.body.dataset.held = 0;
    for (const [kind, text] of held) if (kind === 'chat') inboxReceive(text); else control(text);
    if (chat.chatChannel && chat.chatChannel.readyState === 'open') opened();
  }

  // Other secret words, or someone in the middle: nothing shown or sent, the
  // room left (the code cannot be tried again). The peer gets a moment to
  // read our `failed` before the connection goes.
  function pakeFailed() {
    if (chat.ended) return;
    chat.ended = true;
    chat.leaving = true;
    clearTimeout(chat.pakeTimer);
    chat.held = [];
    document.body.dataset.error = 'pake_failed';
    fail('The code did not match: your peer typed other secret words, or someone is in the middle. Nothing was sent or shown; ask your peer for a new code.');
    finished();
    $('again').focus();
    setTimeout(() => {
      closePeer();
      send({ type: 'leave_room' });
      if (chat.ws) chat.ws.close();
    }, 2000);
  }

  function chatReceived(text) {
    if (chat.auth === null) hold('chat', text);
    else inboxReceive(text);
  }

  // Peer content kept unseen until the code settles (data-held: how much, for tests).
  function hold(kind, text) {
    chat.held.push([kind, text]);
    document.body.dataset.held = chat.held.length;
  }

  function peerText(text) {
    addLine('peer', chat.peerName || 'peer', text);
  }

  function sendMessage(text) {
    if (!text.trim()) return;
    if (utf8Length(text) > MAX_MESSAGE_BYTES) {
      note('That message is over 256 KB and was not sent.');
      return;
    }
    if (chat.group) return groupSend(text);
    const entry = { seq: outbox.nextSeq++, text, sent: false };
    outbox.entries.push(entry);
    const ch = chat.chatChannel;
    if (ch && ch.readyState === 'open' && chat.auth !== null) { ch.send(text); entry.sent = true; }
    else if (chat.awaitingAcceptance) note('Not sent yet: it goes once you have compared the safety words and pressed "They match".');
    else if (ch && ch.readyState === 'open') note('The code is being checked: the message goes once it is.');
    else if (!chat.ended) note('Not connected yet: the message goes as soon as your peer is here.');
    addLine('mine', chat.name || 'you', text);
  }

  // ---- files (FileTransfer.md): one channel `file` per transfer ---------

  const FILE_DATA = 65535, FILE_BUFFER = 1 << 20, UNKNOWN_SIZE = 0xffffffffffffffffn;
  const EMPTY_SHA256 = hasher().digest();
  const enc = (text) => new TextEncoder().encode(text);

  function sizeText(n) {
    if (n === null) return 'unknown size';
    const i = n < 1000 ? 0 : Math.min(4, Math.floor(Math.log10(n) / 3));
    return i ? `${(n / 1000 ** i).toFixed(1)} ${' kMGT'[i]}B` : `${n} B`;
  }

  // A message: the type byte, then fields: [width, number] big-endian, a string, or bytes.
  function message(type, ...fields) {
    const parts = [Uint8Array.of(type)];
    for (const f of fields) {
      if (typeof f === 'string') { const t = enc(f); parts.push(Uint8Array.of(t.length >> 8, t.length & 255), t); }
      else if (f instanceof Uint8Array) parts.push(f);
      else { const b = new Uint8Array(f[0]); for (let i = f[0] - 1, x = BigInt(f[1]); i >= 0; i--, x >>= 8n) b[i] = Number(x & 255n); parts.push(b); }
    }
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((off, p) => { out.set(p, off); return off + p.length; }, 0);
    return out;
  }

  // Reads one received message; any missing byte, string over its limit or
  // invalid UTF-8 throws, and the transfer ends with ABORT.
  function reader(buffer) {
    const view = new DataView(buffer);
    let at = 1;
    const need = (n) => { if (at + n > view.byteLength) throw new Error('a truncated message'); const o = at; at += n; return o; };
    return {
      type: view.byteLength ? view.getUint8(0) : 0,
      u8: () => view.getUint8(need(1)),
      u16: () => view.getUint16(need(2)),
      u32: () => view.getUint32(need(4)),
      u64: () => { const v = view.getBigUint64(need(8)); return v === UNKNOWN_SIZE ? null : Number(v); },
      str: (max) => {
        const n = view.getUint16(need(2));
        if (n > max) throw new Error('a name over its limit');
        return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(buffer, need(n), n));
      },
      bytes: (n) => new Uint8Array(buffer, need(n), n),
      rest: () => { const n = view.byteLength - at; return new Uint8Array(buffer, need(n), n); },
      end: () => { if (at !== view.byteLength) throw new Error('a message with extra bytes'); },
    };
  }

  // The transfer's line among the messages: its words, a progress bar, buttons or a link.
  function transferLine(text) {
    const li = document.createElement('li');
    li.className = 'file';
    li.append(timeNow());
    const t = document.createElement('span'), bar = document.createElement('progress');
    t.className = 'text';
    bar.max = 1; bar.value = 0; bar.hidden = true;
    li.append(t, bar);
    $('messages').append(li);
    $('messages').scrollTop = $('messages').scrollHeight;
    const line = {
      li, bar,
      say(words, state) { t.textContent = words; if (state) li.dataset.transfer = state; },
      progress(done, total) { bar.hidden = !total; if (total) bar.value = done / total; },
      button(label, action) {
        const b = document.createElement('button');
        b.type = 'button'; b.textContent = label;
        b.addEventListener('click', () => { li.querySelectorAll('button').forEach((x) => x.remove()); action(); });
        li.append(b);
      },
    };
    line.say(text);
    return line;
  }

  function sameBytes(a, b) { return a.length === b.length && a.every((x, i) => x === b[i]); }

  // The peer sends: offer, then accept or decline here; the file is kept in memory and offered as a download.
  function receiveFile(channel) {
    channel.binaryType = 'arraybuffer';
    let offer = null, entry = null, line = null, parts = [], got = 0, hash = null, phase = 'offer';
    const abort = (why) => {
      if (channel.readyState === 'open') channel.send(message(12, why));
      if (line) line.say(`Receiving ${offer ? offer.name : 'a file'} failed: ${why}.`, 'failed');
      phase = 'over';
      parts = [];
      setTimeout(() => channel.close(), 1000);
    };
    channel.onclose = () => { if (phase !== 'over' && line && phase !== 'offer') line.say(`Receiving ${offer.name} stopped: the connection closed.`, 'failed'); phase = 'over'; };
    channel.onmessage = (e) => {
      if (phase === 'over' || !(e.data instanceof ArrayBuffer)) return;
      try {
        const m = reader(e.data);
        if (m.type === 12) { const why = m.str(512); phase = 'over'; if (line) line.say(`Receiving ${offer ? offer.name : 'a file'} failed: the sender stopped: ${why}.`, 'failed'); return; }
        if (phase === 'offer' && m.type === 1) {
          const version = m.u8(), size = m.u64(), files = m.u32(), folders = m.u32(), isFolder = m.u8(), name = m.str(255);
          m.end();
          if (version !== 1) return abort('an unknown transfer version');
          offer = { size, name };
          phase = 'asked';
          line = transferLine('');
          if (isFolder || files !== 1 || folders !== 0) {
            line.say(`Your peer offered the folder ${name}; this page receives single files only.`, 'declined');
            phase = 'over';
            return channel.send(message(3, 'the web page receives single files only'));
          }
          line.say(`Your peer offers ${name} (${sizeText(size)}).`, 'offered');
          line.button('Accept', () => { if (phase !== 'asked') return; phase = 'entry'; channel.send(message(2)); line.say(`Receiving ${name}…`, 'receiving'); line.progress(0, size); });
          line.button('Decline', () => { if (phase !== 'asked') return; phase = 'over'; channel.send(message(3, 'declined')); line.say(`You declined ${name}.`, 'declined'); });
        } else if (phase === 'entry' && m.type === 4) {
          const kind = m.u8(), mode = m.u16(), size = m.u64(), path = m.str(4096);
          m.end();
          if (kind !== 0 || mode > 0o777 || path !== offer.name) return abort('an entry that is not the offered file');
          if (offer.size !== null && (size === null || size > offer.size)) return abort('a file larger than offered');
          entry = { size };
          phase = 'start';
          channel.send(message(5, [8, 0], EMPTY_SHA256));
        } else if (phase === 'start' && m.type === 6) {
          const offset = m.u64();
          m.end();
          if (offset !== 0) return abort('a start past what this page has');
          hash = hasher();
          phase = 'data';
        } else if (phase === 'data' && m.type === 7) {
          const data = m.rest();
          if (!data.length || (entry.size !== null && got + data.length > entry.size)) return abort('more data than offered');
          parts.push(data);
          hash.update(data);
          got += data.length;
          line.progress(got, entry.size);
          line.say(`Receiving ${offer.name}: ${sizeText(got)} of ${sizeText(entry.size)}`);
        } else if (phase === 'data' && m.type === 8) {
          const theirs = m.bytes(32);
          m.end();
          if (entry.size !== null && got !== entry.size) return abort('the data ended before the offered size');
          const ok = sameBytes(theirs, hash.digest());
          channel.send(message(9, [1, ok ? 0 : 1]));
          phase = 'done';
          if (!ok) { parts = []; return line.say(`${offer.name} arrived corrupted (SHA-256 mismatch); it was not kept.`, 'mismatch'); }
          const a = document.createElement('a');
          a.href = URL.createObjectURL(new Blob(parts));
          a.download = offer.name;
          a.textContent = `Save ${offer.name}`;
          parts = [];
          line.say(`Received ${offer.name} (${sizeText(got)}), verified (SHA-256). `, 'received');
          line.li.append(a);
        } else if (phase === 'done' && m.type === 10) {
          m.end();
          phase = 'over';
          channel.send(message(11));
        } else {
          abort('an unexpected message');
        }
      } catch (err) {
        abort(err && err.message ? err.message : 'a malformed message');
      }
    };
  }

  // This side sends: its own channel; data only while the send buffer is under 1 MiB.
  function sendFile(file) {
    if (chat.group) return note('Files go to two-person chats only, for now.');
    const pc = chat.pc, name = file.name;
    if (!pc || !chat.chatChannel || chat.chatChannel.readyState !== 'open' || chat.auth === null) return note(`Not connected: ${name} was not sent.`);
    if (!name || enc(name).length > 255) return note('A file name over 255 bytes cannot be sent.');
    const channel = pc.createDataChannel('file', { protocol: 'chatcli-file/1' });
    channel.binaryType = 'arraybuffer';
    channel.bufferedAmountLowThreshold = FILE_BUFFER / 4;
    const line = transferLine(`Offering ${name} (${sizeText(file.size)}); waiting for your peer to accept…`);
    line.li.dataset.transfer = 'offering';
    let at = 0, hash = hasher(), pumping = false, phase = 'offer';
    const read = async (from, to) => new Uint8Array(await file.slice(from, to).arrayBuffer());
    const failed = (why) => { phase = 'over'; line.say(`Sending ${name} failed: ${why}.`, 'failed'); };
    async function pump() {
      if (pumping || phase !== 'data') return;
      pumping = true;
      try {
        while (phase === 'data' && channel.readyState === 'open' && channel.bufferedAmount < FILE_BUFFER) {
          if (at >= file.size) { channel.send(message(8, hash.digest())); phase = 'result'; break; }
          const data = await read(at, Math.min(file.size, at + FILE_DATA));
          hash.update(data);
          at += data.length;
          channel.send(message(7, data));
          line.progress(at, file.size);
          line.say(`Sending ${name}: ${sizeText(at)} of ${sizeText(file.size)}`);
        }
      } catch (err) {
        if (channel.readyState === 'open') channel.send(message(12, 'the file could not be read'));
        failed('the file could not be read');
      }
      pumping = false;
    }
    // RESUME: the receiver has `offset` bytes hashing to `theirs`; they stay only if this file starts the same.
    async function start(offset, theirs) {
      if (offset !== null && offset > 0 && offset <= file.size) {
        for (at = 0; at < offset; at += FILE_DATA) hash.update(await read(at, Math.min(offset, at + FILE_DATA)));
        at = offset;
        if (!sameBytes(hash.digest(), theirs)) { at = 0; hash = hasher(); }
      }
      channel.send(message(6, [8, at]));
      phase = 'data';
      pump();
    }
    channel.onbufferedamountlow = pump;
    channel.onopen = () => channel.send(message(1, [1, 1], [8, file.size], [4, 1], [4, 0], [1, 0], name));
    channel.onclose = () => { if (phase !== 'over') failed('the connection closed'); };
    channel.onmessage = (e) => {
      if (phase === 'over' || !(e.data instanceof ArrayBuffer)) return;
      try {
        const m = reader(e.data);
        if (m.type === 2 && phase === 'offer') {
          m.end();
          phase = 'resume';
          line.say(`Sending ${name}…`, 'sending');
          line.progress(0, file.size);
          channel.send(message(4, [1, 0], [2, 0o644], [8, file.size], name));
        } else if (m.type === 3 && phase === 'offer') {
          const why = m.str(512);
          phase = 'over';
          line.say(`Your peer declined ${name} (${why}).`, 'declined');
          channel.close();
        } else if (m.type === 5 && phase === 'resume') {
          const offset = m.u64(), theirs = m.bytes(32);
          m.end();
          phase = 'starting';
          start(offset, theirs);
        } else if (m.type === 9 && (phase === 'result' || phase === 'data')) {
          const status = m.u8();
          m.end();
          if (status !== 0) { line.say(`${name} arrived corrupted at your peer (SHA-256 mismatch).`, 'mismatch'); phase = 'done'; }
          else line.say(`Sent ${name} (${sizeText(file.size)}): verified (SHA-256).`, 'sent');
          phase = 'done';
          channel.send(message(10));
        } else if (m.type === 11 && phase === 'done') {
          phase = 'over';
          channel.close();
        } else if (m.type === 12) {
          failed(`your peer stopped it: ${m.str(512)}`);
        } else {
          channel.send(message(12, 'an unexpected message'));
          failed('an unexpected message from your peer');
        }
      } catch (err) {
        channel.send(message(12, 'a malformed message'));
        failed('a malformed message from your peer');
      }
    };
  }

  // ---- group rooms (WireProtocol §2b, §4d) -------------------------------
  //
  // As chatcli: a pairwise chat per other member (its own connection, CPace
  // bound to the room and that pair's certificates, delivery and name on
  // `ctl`), signaling sent `to` one member. Whoever was admitted first
  // offers. An unproven pair gets and shows nothing; a failed one ends.

  const NAME_WAIT_MS = 1000;   // a member's first lines wait for its name, as in chatcli
  const HELD_LIMIT = 1024;
  const isMemberId = (id) => typeof id === 'string' && /^[0-9a-f]{16}$/.test(id);
  const handleOf = (id) => 'guest-' + id.slice(0, 4);
  const ownGroupName = () => chat.name || handleOf(chat.group.memberId);
  const groupPairs = () => Array.from(chat.group.pairs.values());

  // `seat`: this member's id and the room's size, from `create` or `accept`.
  async function startGroup(seat, inviting) {
    chat.group = { memberId: seat.memberId, max: seat.max, pairs: new Map() };
    document.body.dataset.group = 'true';
    $('chat-title').textContent = 'Group chat';
    for (const id of ['facts', 'sas-hint', 'file-form']) $(id).hidden = true;
    $('members').hidden = false;
    show(inviting ? ['invite', 'chat'] : ['chat']);
    $('leave').hidden = false;
    note(`A group chat of up to ${seat.max} people; you are ${ownGroupName()}.`);
    groupStatus();
    await loadICEServers();
    connectSignaling();
    $('message').focus();
  }

  function groupStatus() {
    const pairs = groupPairs().filter((p) => !p.ended);
    const here = 1 + pairs.filter((p) => p.present).length;
    const proven = pairs.filter((p) => p.auth === 'pake').length;
    Object.assign(document.body.dataset, { members: here, proven });
    const list = $('members');
    list.replaceChildren(...pairs.map((p) => {
      const li = document.createElement('li');
      li.dataset.member = p.id;
      li.dataset.auth = p.auth || 'checking';
      const how = p.path ? (p.path.relay ? ', through a relay' : ', directly') : '';
      li.textContent = `${p.name}: ` + (!p.present ? 'away'
        : p.auth === 'pake' ? `verified by code${how}`
          : p.auth === 'unproven' ? 'not proven by the code, so nothing crosses'
            : 'checking the code…');
      return li;
    }));
    if (chat.ended || chat.leaving) return;
    if (here === 1) setStatus(`Group chat (up to ${chat.group.max}): waiting for others to join…`, 'waiting');
    else setStatus(`Group chat: ${here} here (up to ${chat.group.max}), end-to-end encrypted; ${proven} of ${here - 1} verified by code.`, 'group');
  }

  async function groupSignal(m) {
    const g = chat.group;
    switch (m.type) {
      case 'room_joined': {
        if (m.group !== true || !Array.isArray(m.members)) break;
        chat.wsBackoff = 0;
        const seated = new Set();
        for (const peer of m.members.slice(0, 16)) {
          if (!peer || !isMemberId(peer.memberId) || peer.memberId === g.memberId) continue;
          seated.add(peer.memberId);
          await memberSeated(peer.memberId, peer.isInitiator === true);
        }
        // Members not seated now dropped out while this page was away from the server.
        for (const p of groupPairs()) if (!seated.has(p.id) && p.present && !p.ended) memberAway(p);
        groupStatus();
        break;
      }
      case 'member_joined':
        if (isMemberId(m.memberId) && m.memberId !== g.memberId) await memberSeated(m.memberId, m.isInitiator === true);
        break;
      case 'member_left': {
        const p = g.pairs.get(m.memberId);
        if (!p || p.ended) break;
        if (m.reason === 'left') pairEnded(p, `${p.name} left the group.`);
        else memberAway(p);
        break;
      }
      case 'webrtc_offer': case 'webrtc_answer': case 'ice_candidate': {
        if (!isMemberId(m.from) || m.from === g.memberId) break;
        let p = g.pairs.get(m.from);
        if ((!p || p.ended) && m.type === 'webrtc_offer') p = newPair(m.from, false);
        if (!p || p.ended) break;
        if (m.type === 'ice_candidate') await takeCandidate(m.candidate, p);
        else if (typeof m.sdp === 'string') await (m.type === 'webrtc_offer' ? takeOffer(m.sdp, p) : takeAnswer(m.sdp, p));
        break;
      }
    }
  }

  function newPair(id, offers) {
    const p = {
      id, name: handleOf(id), named: false, waiting: [], nameTimer: null, offers, present: true, ended: false,
      pc: null, chatCh: null, ctlCh: null, pendingCandidates: [], auth: null, pakeTimer: null, speaksDelivery: false,
      outbox: { epoch: randomHex(8), nextSeq: 1, entries: [] }, inbox: { hello: null, received: 0, shown: new Map() },
    };
    chat.group.pairs.set(id, p);
    return p;
  }

  // A member is in the room: new (its pair starts), or back (its pair reconnects).
  async function memberSeated(id, offers) {
    let p = chat.group.pairs.get(id);
    const wasHere = p && !p.ended && p.present;
    if (!p || p.ended) {
      p = newPair(id, offers);
      note(`${p.name} joined the group.`);
    } else {
      if (!p.present) note(`${p.name} is back.`);
      p.present = true;
      p.offers = offers;
    }
    groupStatus();
    if (offers && !(wasHere && p.pc && p.pc.connectionState === 'connected')) await pairOffer(p);
  }

  function memberAway(p) {
    p.present = false;
    note(`${p.name} lost its connection; what you type waits for them to come back.`);
    groupStatus();
  }

  function pairEnded(p, text) {
    if (p.ended) return;
    p.ended = true;
    p.present = false;
    clearTimeout(p.pakeTimer);
    pairNameSettled(p);
    pairClose(p);
    note(text);
    groupStatus();
  }

  function pairClose(p) {
    const pc = p.pc, channels = [p.chatCh, p.ctlCh];
    p.pc = null; p.chatCh = null; p.ctlCh = null;
    for (const ch of channels) if (ch) try { ch.close(); } catch (_) { /* closed */ }
    if (pc) pc.close();
  }

  // A new DTLS session: the code is proven again.
  function pairConnection(p, offerer) {
    pairClose(p);
    clearTimeout(p.pakeTimer);
    const pc = new RTCPeerConnection({ iceServers: chat.iceServers, iceTransportPolicy: relayOnly ? 'relay' : 'all' });
    Object.assign(p, { pc, pendingCandidates: [], remoteFingerprint: null, offerer, peerRunsPAKE: false, auth: null, exchange: null, pakeTimer: null, held: [], path: null });
    p.inbox.hello = null;
    p.inbox.received = 0;
    pc.onicecandidate = (e) => {
      if (p.pc !== pc) return;
      send({ type: 'ice_candidate', to: p.id, candidate: candidateOf(e.candidate) });
    };
    pc.onconnectionstatechange = () => { if (p.pc === pc) pairConnectionChanged(p, pc).catch(() => {}); };
    pc.ondatachannel = (e) => { if (p.pc === pc) pairAttach(p, e.channel); };
    return pc;
  }

  async function pairOffer(p) {
    let pc = p.pc;
    const restart = pc && pc.signalingState !== 'closed';
    if (!restart) {
      pc = pairConnection(p, true);
      pairAttach(p, pc.createDataChannel('chat'));
      pairAttach(p, pc.createDataChannel('ctl'));
    }
    if (pc.signalingState === 'have-local-offer') await pc.setLocalDescription({ type: 'rollback' });
    const offer = await pc.createOffer(restart ? { iceRestart: true } : {});
    if (p.pc !== pc) return;
    await pc.setLocalDescription(offer);
    send({ type: 'webrtc_offer', to: p.id, sdp: announced(pc.localDescription.sdp) });
  }

  async function pairConnectionChanged(p, pc) {
    if (pc.connectionState === 'connected') {
      const path = await pathOf(pc);
      if (p.pc !== pc) return;
      p.path = path;
      groupStatus();
    } else if (pc.connectionState === 'failed' && p.offers && !chat.leaving && !p.ended) {
      await pairOffer(p);   // ICE restart, as chatcli does
    }
  }

  function pairAttach(p, channel) {
    if (channel.label === 'chat' || channel.label === 'ctl') {
      const isChat = channel.label === 'chat';
      if (isChat) p.chatCh = channel; else p.ctlCh = channel;
      channel.onopen = () => pairStartPAKE(p);
      channel.onmessage = (e) => {
        if (typeof e.data !== 'string' || (isChat ? p.chatCh : p.ctlCh) !== channel) return;
        if (isChat) pairChatReceived(p, e.data); else pairControl(p, e.data);
      };
      if (channel.readyState === 'open') pairStartPAKE(p);
    } else {
      channel.close();   // files go to two-person chats only, for now
    }
  }

  const pairOpen = (p) => p.chatCh && p.chatCh.readyState === 'open' && p.ctlCh && p.ctlCh.readyState === 'open';

  function pairStartPAKE(p) {
    if (p.auth !== null || p.ended || p.pakeTimer !== null || !pairOpen(p)) return;
    if (!chat.secret) return pairUnproven(p, 'your code had no secret words');
    if (!p.peerRunsPAKE) return pairUnproven(p, 'their side runs no check of the code');
    p.pakeTimer = setTimeout(() => { p.pakeTimer = null; pairSkipped(p); }, PAKE_DEADLINE_MS);
    const exchange = exchangeNow(p);
    const first = exchange && p.offerer ? exchange.start() : null;
    if (first) sendControl(first, p);
  }

  function pairPAKEMessage(p, m) {
    if (!chat.secret) {
      if (m.step === 'share') sendControl({ type: 'pake', step: 'unproven' }, p);
      return;
    }
    if (p.auth !== null) {
      if (m.step === 'failed' && p.auth === 'pake') pairFailed(p);
      return;
    }
    const exchange = exchangeNow(p);
    if (!exchange) return;
    const reply = exchange.receive(m);
    if (reply) sendControl(reply, p);
    if (exchange.outcome) pairSettle(p, exchange.outcome);
  }

  function pairSkipped(p) {
    if (p.auth !== null || p.ended) return;
    const exchange = exchangeNow(p);
    const reply = exchange && exchange.peerSkipped();
    if (reply) sendControl(reply, p);
    pairSettle(p, exchange ? exchange.outcome : 'unproven');
  }

  function pairSettle(p, outcome) {
    clearTimeout(p.pakeTimer);
    p.pakeTimer = null;
    p.exchange = null;
    if (outcome === 'verified') pairRelease(p);
    else if (outcome === 'unproven') pairUnproven(p, 'they may know only the six digits');
    else pairFailed(p);
  }

  function pairUnproven(p, why) {
    clearTimeout(p.pakeTimer);
    p.pakeTimer = null;
    p.auth = 'unproven';
    p.held = [];
    note(`${p.name} is not proven by the code (${why}): nothing is sent to them or shown from them.`);
    groupStatus();
  }

  // The member gets a moment to read our `failed`.
  function pairFailed(p) {
    if (p.ended) return;
    p.auth = 'failed';
    p.held = [];
    p.waiting = [];
    document.body.dataset.pairFailed = p.id;
    const closing = { ...p };
    p.pc = p.chatCh = p.ctlCh = null;
    pairEnded(p, `The code did not match with ${p.name} (other secret words, or someone in the middle): nothing crossed with them; the others go on.`);
    setTimeout(() => pairClose(closing), 2000);
  }

  function pairRelease(p) {
    p.auth = 'pake';
    const box = p.outbox;
    if (!p.speaksDelivery) box.entries = box.entries.filter((e) => !e.sent);
    sendControl({ type: 'hello', delivery: 1, epoch: box.epoch, next: box.entries.length ? box.entries[0].seq : box.nextSeq }, p);
    sendControl({ type: 'name', name: ownGroupName() }, p);
    for (const entry of box.entries) { p.chatCh.send(entry.text); entry.sent = true; }
    p.announce = true;   // by name, once it came (or the wait ended)
    if (p.named) pairNameSettled(p);
    else if (p.nameTimer === null) p.nameTimer = setTimeout(() => pairNameSettled(p), NAME_WAIT_MS);
    const held = p.held;
    p.held = [];
    for (const [kind, text] of held) if (kind === 'chat') pairInbox(p, text); else pairControl(p, text);
    groupStatus();
  }

  function pairHold(p, kind, text) {
    if (p.held.length < HELD_LIMIT) p.held.push([kind, text]);
  }

  function pairControl(p, text) {
    if (text.length > 4096) return;
    let m;
    try { m = JSON.parse(text); } catch (_) { return; }
    if (!m || typeof m !== 'object') return;
    if (m.type === 'pake') return pairPAKEMessage(p, m);
    if (p.auth === null) {
      if (m.type === 'hello' && chat.secret && pairOpen(p)) pairSkipped(p);
      else pairHold(p, 'ctl', text);
      return;
    }
    if (p.auth !== 'pake') return;
    if (m.type === 'hello' && typeof m.epoch === 'string' && Number.isInteger(m.next) && m.next >= 1) {
      p.speaksDelivery = true;
      pairHello(p, m.epoch, m.next);
    } else if (m.type === 'ack' && m.epoch === p.outbox.epoch && Number.isInteger(m.seq)) {
      p.speaksDelivery = true;
      p.outbox.entries = p.outbox.entries.filter((e) => e.seq > m.seq);
      if (chat.leaving && leaveTimer !== null && !groupUndelivered()) { clearTimeout(leaveTimer); groupFinishLeave(); }
    } else if (m.type === 'name') {
      pairNamed(p, cleanName(m.name));
    }
  }

  function pairChatReceived(p, text) {
    if (p.auth === null) pairHold(p, 'chat', text);
    else if (p.auth === 'pake') pairInbox(p, text);
  }

  function pairInbox(p, text) {
    const position = p.inbox.received++, hello = p.inbox.hello;
    if (!hello) return pairShow(p, text);
    const seq = hello.next + position;
    if (seq <= (p.inbox.shown.get(hello.epoch) || 0)) return;
    p.inbox.shown.set(hello.epoch, seq);
    pairShow(p, text);
    sendControl({ type: 'ack', epoch: hello.epoch, seq }, p);
  }

  function pairHello(p, epoch, next) {
    if (p.inbox.hello) return;
    p.inbox.hello = { epoch, next };
    const last = next + p.inbox.received - 1;
    if (p.inbox.received > 0 && last > (p.inbox.shown.get(epoch) || 0)) {
      p.inbox.shown.set(epoch, last);
      sendControl({ type: 'ack', epoch, seq: last }, p);
    }
  }

  function pairShow(p, text) {
    if (p.named) return addLine('peer', p.name, text);
    p.waiting.push(text);
    if (p.nameTimer === null) p.nameTimer = setTimeout(() => pairNameSettled(p), NAME_WAIT_MS);
  }

  function pairNameSettled(p) {
    clearTimeout(p.nameTimer);
    p.nameTimer = null;
    p.named = true;
    if (p.announce) note(`${p.name}: connected, end-to-end encrypted, verified by code.`);
    p.announce = false;
    const waiting = p.waiting;
    p.waiting = [];
    for (const text of waiting) addLine('peer', p.name, text);
  }

  // A name someone else here has gets the member's handle too.
  function pairNamed(p, name) {
    if (!name) return;
    const taken = name === ownGroupName() || groupPairs().some((q) => q !== p && !q.ended && q.name === name);
    const shown = taken ? `${name} (${p.id.slice(0, 4)})` : name;
    if (shown !== p.name) {
      if (p.named) note(`${p.name} is now called ${shown}.`);
      p.name = shown;
      groupStatus();
    }
    pairNameSettled(p);
  }

  function groupSend(text) {
    const to = groupPairs().filter((p) => !p.ended && p.auth !== 'unproven');
    if (!to.length) return note('Not sent: nobody here is proven by the code (or nobody came).');
    for (const p of to) {
      const entry = { seq: p.outbox.nextSeq++, text, sent: false };
      p.outbox.entries.push(entry);
      if (p.auth === 'pake' && p.chatCh && p.chatCh.readyState === 'open') { p.chatCh.send(text); entry.sent = true; }
    }
    addLine('mine', ownGroupName(), text);
  }

  function groupUndelivered() {
    return groupPairs().filter((p) => !p.ended && p.speaksDelivery && p.outbox.entries.length).length;
  }

  function groupFinishLeave() {
    if (chat.ended) return;
    chat.ended = true;
    const missed = groupUndelivered();
    for (const p of groupPairs()) pairClose(p);
    send({ type: 'leave_room' });
    if (chat.ws) setTimeout(() => chat.ws.close(), 200);
    if (missed) note(`What you typed last did not reach ${missed === 1 ? '1 member' : `${missed} members`}.`);
    setStatus('You left the group chat.', 'left');
    finished();
  }

  // ---- endings -----------------------------------------------------------

  // `how`: 'channel' (the peer closed it) or 'server' (its peer_left), kept in data-peer-left.
  function peerLeft(how) {
    if (chat.ended) return;
    chat.ended = true;
    document.body.dataset.peerLeft = how;
    closePeer();
    chat.leaving = true;
    send({ type: 'leave_room' });
    if (chat.ws) chat.ws.close();
    note('Your peer left the chat.');
    setStatus('Your peer left the chat.', 'peer_left');
    finished();
  }

  // Leaving waits (briefly) for the peer's ack of what was sent, never on
  // bufferedAmount: Chromium sometimes never lowers it after the peer read everything.
  let leaveTimer = null;
  function leave() {
    if (chat.ended) return;
    chat.leaving = true;
    $('leave').disabled = true;
    setStatus('Leaving…', 'leaving');
    if (chat.group) leaveTimer = setTimeout(groupFinishLeave, groupUndelivered() ? 3000 : 0);
    else leaveTimer = setTimeout(finishLeave, peerSpeaksDelivery && outbox.entries.length ? 3000 : 0);
  }

  function maybeFinishLeave() {
    if (outbox.entries.length === 0 && leaveTimer !== null) { clearTimeout(leaveTimer); finishLeave(); }
  }

  function finishLeave() {
    if (chat.ended) return;
    chat.ended = true;
    const undelivered = peerSpeaksDelivery ? outbox.entries.length : 0;
    closePeer();   // channels closed the standard way: stream reset, then SCTP shutdown
    send({ type: 'leave_room' });
    if (chat.ws) setTimeout(() => chat.ws.close(), 200);
    if (undelivered) note(undelivered === 1 ? '1 message you typed never reached your peer.' : `${undelivered} messages you typed never reached your peer.`);
    setStatus('You left the chat.', 'left');
    finished();
  }

  function finished() {
    $('leave').hidden = true;
    $('send').disabled = true;
    $('message').disabled = true;
    $('file').disabled = true;
    $('again').hidden = false;
    $('again').focus();
  }

  // ---- wiring --------------------------------------------------------------

  function boot() {
    $('create').addEventListener('click', () => { create().catch((e) => fail(String(e && e.message || e))); });
    $('join-form').addEventListener('submit', (e) => { e.preventDefault(); join($('join-code').value).catch((err) => fail(String(err && err.message || err))); });
    $('name-form').addEventListener('submit', (e) => e.preventDefault());
    $('name').addEventListener('change', () => {
      chat.name = cleanName($('name').value);
      if (chat.group) { for (const p of groupPairs()) if (p.auth === 'pake') sendControl({ type: 'name', name: ownGroupName() }, p); }
      else if (chat.name && chat.auth !== null) sendControl({ type: 'name', name: chat.name });
    });
    $('send-form').addEventListener('submit', (e) => {
      e.preventDefault();
      sendMessage($('message').value);
      $('message').value = '';
      $('message').focus();
    });
    $('file').addEventListener('change', () => { for (const f of $('file').files) sendFile(f); $('file').value = ''; });
    $('chat').addEventListener('dragover', (e) => e.preventDefault());
    $('chat').addEventListener('drop', (e) => { e.preventDefault(); for (const f of e.dataTransfer.files) sendFile(f); });
    $('message').addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); $('send-form').requestSubmit(); }
    });
    $('verify').addEventListener('click', () => {
      if (!chat.sas) return;
      if (chat.awaitingAcceptance) accept();
      sendControl({ type: 'verified', sas: chat.sas });
      note('You marked the safety words as verified.');
      $('verify').disabled = true;
    });
    $('copy').addEventListener('click', async () => {
      try { await navigator.clipboard.writeText($('link').href); note('Link copied.'); setStatus('Link copied; waiting for your peer…'); } catch (_) { setStatus('Select the link to copy it.'); }
    });
    $('leave').addEventListener('click', () => { if (chat.roomId) leave(); else { chat.leaving = true; location.href = '/'; } });
    window.addEventListener('pagehide', () => { if (!chat.ended && chat.roomId) { send({ type: 'leave_room' }); } });
    const m = /^\/j\/([0-9]{6})$/.exec(location.pathname);
    if (m) {
      join(m[1], linkSecret).catch((e) => fail(String(e && e.message || e)));
    } else {
      show(['start']);
      setStatus('Not connected.', 'idle');
      $('name').focus();
    }
  }

  boot();
})();
