extension WebPage {
    /// File transfers in the page (FileTransfer.md): one `file` channel each.
    static let scriptFiles = #"""
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
    const pc = chat.pc, name = file.name;
    if (!pc || !chat.chatChannel || chat.chatChannel.readyState !== 'open') return note(`Not connected: ${name} was not sent.`);
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

"""#
}
