extension WebPage {
    /// Leaving, the peer leaving, and wiring the page's controls.
    static let scriptWiring = #"""
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
    leaveTimer = setTimeout(finishLeave, peerSpeaksDelivery && outbox.entries.length ? 3000 : 0);
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
      if (chat.name) sendControl({ type: 'name', name: chat.name });
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
      join(m[1]).catch((e) => fail(String(e && e.message || e)));
    } else {
      show(['start']);
      setStatus('Not connected.', 'idle');
      $('name').focus();
    }
  }

  boot();
})();

"""#
}
