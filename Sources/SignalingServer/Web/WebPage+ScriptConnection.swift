extension WebPage {
    /// REST pairing, the signaling WebSocket, WebRTC and the data channels.
    static let scriptConnection = #"""
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
  };

  async function loadICEServers() {
    try {
      const query = chat.roomId ? `?roomid=${chat.roomId}&deviceId=${chat.deviceId}` : '';
      const r = await api('GET', '/api/ice-servers' + query);
      if (r.status === 200 && r.data && Array.isArray(r.data.iceServers)) chat.iceServers = r.data.iceServers;
    } catch (_) { /* STUN-less: host and peer-reflexive candidates still work */ }
  }

  function randomCode() {
    const limit = 4294000000;   // a multiple of 10^6 below 2^32: no modulo bias
    for (;;) {
      const [n] = crypto.getRandomValues(new Uint32Array(1));
      if (n < limit) return String(n % 1000000).padStart(6, '0');
    }
  }

  async function create() {
    $('create').disabled = true;
    chat.name = cleanName($('name').value);
    setStatus('Creating a chat…', 'creating');
    let created = false;
    try {
      for (let attempt = 0; attempt < 10 && !created; attempt++) {
        chat.code = randomCode();
        const r = await api('POST', '/api/rooms', { joinid: chat.code, expiresInSeconds: 3600, client1: chat.deviceId });
        if (r.status === 201 || r.status === 200) created = true;
        else if (r.status !== 409) return fail(`The server refused to create a chat (${(r.data && r.data.error) || r.status}).`);
      }
    } catch (_) {
      return fail('Cannot reach the server. Check your connection and reload the page.');
    }
    if (!created) return fail('Could not find a free code; try again in a moment.');
    const link = `${location.origin}/j/${chat.code}`;
    $('code').textContent = `${chat.code.slice(0, 3)} ${chat.code.slice(3)}`;
    $('code-cli').textContent = chat.code;
    $('link').textContent = link;
    $('link').href = link;
    show(['invite']);
    $('leave').hidden = false;
    setStatus('Waiting for your peer to join…', 'waiting');
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
    chat.initiator = true;
    await startChat();
  }

  async function join(code) {
    code = code.replace(/\s+/g, '');
    if (!/^[0-9]{6}$/.test(code)) {
      $('join-code').setAttribute('aria-invalid', 'true');
      return fail('A code is 6 digits, like 123 456.');
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
      return startChat();
    }
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

  async function signal(m) {
    switch (m.type) {
      case 'connected':
        chat.clientId = m.clientId;
        send({ type: 'join_room', roomId: chat.roomId });
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
        setTimeout(() => send({ type: 'join_room', roomId: chat.roomId }), 1000 + Math.random() * 1000);
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
        if (m.error === 'room_not_found') { chat.ended = true; closePeer(); fail('This chat no longer exists on the server.'); }
        break;
    }
  }

  // ---- WebRTC ---------------------------------------------------------------

  function newPeerConnection() {
    closePeer();
    const pc = new RTCPeerConnection({ iceServers: chat.iceServers, iceTransportPolicy: relayOnly ? 'relay' : 'all' });
    chat.pc = pc;
    chat.pendingCandidates = [];
    chat.remoteFingerprint = null;
    inboxOpened();
    pc.onicecandidate = (e) => {
      if (chat.pc !== pc) return;
      const c = e.candidate;
      send({ type: 'ice_candidate', candidate: c && c.candidate
        ? { candidate: c.candidate, sdpMLineIndex: c.sdpMLineIndex ?? 0, sdpMid: c.sdpMid ?? '0' }
        : { candidate: '', sdpMLineIndex: 0, sdpMid: '0' } });
    };
    pc.onconnectionstatechange = () => { if (chat.pc === pc) connectionChanged(pc); };
    pc.ondatachannel = (e) => { if (chat.pc === pc) attach(e.channel); };
    return pc;
  }

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
      pc = newPeerConnection();
      attach(pc.createDataChannel('chat'));
      attach(pc.createDataChannel('ctl'));
    }
    if (pc.signalingState === 'have-local-offer') await pc.setLocalDescription({ type: 'rollback' });
    const offer = await pc.createOffer(restart ? { iceRestart: true } : {});
    await pc.setLocalDescription(offer);
    send({ type: 'webrtc_offer', sdp: pc.localDescription.sdp });
  }

  async function takeOffer(sdp) {
    const fingerprint = fingerprintOf(sdp);
    let pc = chat.pc;
    // A new peer process (a resumed chatcli) has a new certificate: only a new connection can talk to it.
    const sameCert = pc && chat.remoteFingerprint && fingerprint && fingerprint.bytes.join() === chat.remoteFingerprint.bytes.join();
    if (!pc || !sameCert || pc.signalingState === 'closed') pc = newPeerConnection();
    if (pc.signalingState === 'have-local-offer') await pc.setLocalDescription({ type: 'rollback' });
    await pc.setRemoteDescription({ type: 'offer', sdp });
    chat.remoteFingerprint = fingerprint;
    await flushCandidates(pc);
    await pc.setLocalDescription(await pc.createAnswer());
    send({ type: 'webrtc_answer', sdp: pc.localDescription.sdp });
  }

  async function takeAnswer(sdp) {
    const pc = chat.pc;
    if (!pc || pc.signalingState !== 'have-local-offer') return;
    const fingerprint = fingerprintOf(sdp);
    if (chat.remoteFingerprint && fingerprint && fingerprint.bytes.join() !== chat.remoteFingerprint.bytes.join()) {
      // The peer restarted as a new process: start over with a fresh connection.
      closePeer();
      return makeOffer();
    }
    await pc.setRemoteDescription({ type: 'answer', sdp });
    chat.remoteFingerprint = fingerprint;
    await flushCandidates(pc);
  }

  async function takeCandidate(c) {
    if (!c || typeof c !== 'object') return;
    const text = typeof c.candidate === 'string' ? c.candidate.replace(/^a=/, '') : '';
    const init = text ? { candidate: text, sdpMid: c.sdpMid ?? '0', sdpMLineIndex: c.sdpMLineIndex ?? 0 } : null;
    const pc = chat.pc;
    if (!pc || !pc.remoteDescription) { chat.pendingCandidates.push(init); return; }
    await addCandidate(pc, init);
  }

  async function addCandidate(pc, init) {
    try {
      if (init) await pc.addIceCandidate(init);
      else await pc.addIceCandidate();   // end of candidates
    } catch (err) { console.warn('candidate', err); }
  }

  async function flushCandidates(pc) {
    const pending = chat.pendingCandidates;
    chat.pendingCandidates = [];
    for (const init of pending) await addCandidate(pc, init);
  }

  async function connectionChanged(pc) {
    switch (pc.connectionState) {
      case 'connected': {
        const path = await pathOf(pc);
        const local = fingerprintOf(pc.localDescription && pc.localDescription.sdp);
        const remote = fingerprintOf(pc.remoteDescription && pc.remoteDescription.sdp);
        if (local && remote) chat.sas = await safetyWords(local, remote);
        const how = path.relay ? 'through a relay' : 'directly';
        $('path').textContent = `${path.relay ? 'relay' : 'direct'} (${path.local} ↔ ${path.remote})`;
        $('path').dataset.path = path.type;
        $('sas').textContent = chat.sas || 'unavailable';
        $('sas-hint').hidden = !chat.sas;
        setStatus(`Connected ${how}, end-to-end encrypted.`, 'connected');
        note(chat.connectedOnce ? `Reconnected ${how}; nothing was lost.` : `Connected ${how}. Safety words: ${chat.sas}`);
        chat.connectedOnce = true;
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
    return { relay, type: relay ? 'relay' : kind(remote), local: where(local), remote: where(remote) };
  }

  // ---- data channels ----------------------------------------------------

  function attach(channel) {
    if (channel.label === 'chat') {
      if (chat.chatChannel && chat.chatChannel.readyState === 'open') return;
      chat.chatChannel = channel;
      channel.onopen = () => { opened(); $('message').focus(); };
      channel.onmessage = (e) => { if (typeof e.data === 'string') inboxReceive(e.data); };
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
      receiveFile(channel);
    }
  }

  // A new connection: what the peer has not acknowledged goes again, oldest first.
  function opened() {
    if (!peerSpeaksDelivery) outbox.entries = [];
    outbox.base = outbox.entries.length ? outbox.entries[0].seq : outbox.nextSeq;
    outbox.helloSent = false;
    for (const entry of outbox.entries) chat.chatChannel.send(entry.text);
    if (chat.ctlChannel && chat.ctlChannel.readyState === 'open') ctlOpened();
  }

  function ctlOpened() {
    if (!chat.chatChannel || chat.chatChannel.readyState !== 'open' || outbox.helloSent) return;
    outbox.helloSent = true;
    sendControl({ type: 'hello', delivery: 1, epoch: outbox.epoch, next: outbox.base });
    if (chat.name) sendControl({ type: 'name', name: chat.name });
  }

  function sendControl(message) {
    const ch = chat.ctlChannel;
    if (ch && ch.readyState === 'open') ch.send(JSON.stringify(message));
  }

  function control(text) {
    if (text.length > 4096) return;
    let m;
    try { m = JSON.parse(text); } catch (_) { return; }
    if (!m || typeof m !== 'object') return;
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

  function peerText(text) {
    addLine('peer', chat.peerName || 'peer', text);
  }

  function sendMessage(text) {
    if (!text.trim()) return;
    if (utf8Length(text) > MAX_MESSAGE_BYTES) {
      note('That message is over 256 KB and was not sent.');
      return;
    }
    outbox.entries.push({ seq: outbox.nextSeq++, text });
    const ch = chat.chatChannel;
    if (ch && ch.readyState === 'open') ch.send(text);
    else note('Not connected yet: the message goes as soon as your peer is here.');
    addLine('mine', chat.name || 'you', text);
  }

"""#
}
