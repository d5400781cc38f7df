'use strict';
// CPace (draft-irtf-cfrg-cpace) with ristretto255 (RFC 9496) and SHA-512
// (FIPS 180-4), the same functions as chatcli's Sources/PAKE (CPace.swift,
// LengthValue.swift, PAKEHandshake.swift), in plain JavaScript: no library,
// no WebCrypto (it is missing on plain-http pages), BigInt for the field.
//
// Constant time: this is NOT constant-time code. BigInt arithmetic takes
// time that depends on its operands, and the field square roots branch on
// their results. What is uniform: the scalar multiplication does the same
// sequence of group operations (a double and an add) for every bit of the
// scalar, the field exponentiations use fixed public exponents, and the tags
// are compared without an early exit. Why that is acceptable here: the code's
// secret is single use (a failed check ends the chat and burns the room),
// every run uses a fresh scalar and a generator bound to that room and both
// DTLS certificates, so a timing measurement is worth one guess at most; and
// measuring it needs a clock on the page's own machine (another tab's script,
// which the browser's timer coarsening and site isolation blunt), not the
// network, whose jitter is far larger than these differences.
(() => {
  // ---- SHA-512 and HMAC-SHA-512 (FIPS 180-4, RFC 2104) ------------------

  const MASK64 = (1n << 64n) - 1n;
  const K512 = [
    '428a2f98d728ae22', '7137449123ef65cd', 'b5c0fbcfec4d3b2f', 'e9b5dba58189dbbc', '3956c25bf348b538', '59f111f1b605d019',
    '923f82a4af194f9b', 'ab1c5ed5da6d8118', 'd807aa98a3030242', '12835b0145706fbe', '243185be4ee4b28c', '550c7dc3d5ffb4e2',
    '72be5d74f27b896f', '80deb1fe3b1696b1', '9bdc06a725c71235', 'c19bf174cf692694', 'e49b69c19ef14ad2', 'efbe4786384f25e3',
    '0fc19dc68b8cd5b5', '240ca1cc77ac9c65', '2de92c6f592b0275', '4a7484aa6ea6e483', '5cb0a9dcbd41fbd4', '76f988da831153b5',
    '983e5152ee66dfab', 'a831c66d2db43210', 'b00327c898fb213f', 'bf597fc7beef0ee4', 'c6e00bf33da88fc2', 'd5a79147930aa725',
    '06ca6351e003826f', '142929670a0e6e70', '27b70a8546d22ffc', '2e1b21385c26c926', '4d2c6dfc5ac42aed', '53380d139d95b3df',
    '650a73548baf63de', '766a0abb3c77b2a8', '81c2c92e47edaee6', '92722c851482353b', 'a2bfe8a14cf10364', 'a81a664bbc423001',
    'c24b8b70d0f89791', 'c76c51a30654be30', 'd192e819d6ef5218', 'd69906245565a910', 'f40e35855771202a', '106aa07032bbd1b8',
    '19a4c116b8d2d0c8', '1e376c085141ab53', '2748774cdf8eeb99', '34b0bcb5e19b48a8', '391c0cb3c5c95a63', '4ed8aa4ae3418acb',
    '5b9cca4f7763e373', '682e6ff3d6b2b8a3', '748f82ee5defb2fc', '78a5636f43172f60', '84c87814a1f0ab72', '8cc702081a6439ec',
    '90befffa23631e28', 'a4506cebde82bde9', 'bef9a3f7b2c67915', 'c67178f2e372532b', 'ca273eceea26619c', 'd186b8c721c0c207',
    'eada7dd6cde0eb1e', 'f57d4f7fee6ed178', '06f067aa72176fba', '0a637dc5a2c898a6', '113f9804bef90dae', '1b710b35131c471b',
    '28db77f523047d84', '32caab7b40c72493', '3c9ebe0a15c9bebc', '431d67c49c100d4c', '4cc5d4becb3e42b6', '597f299cfc657e2a',
    '5fcb6fab3ad6faec', '6c44198c4a475817',
  ].map((h) => BigInt('0x' + h));
  const H512 = [
    '6a09e667f3bcc908', 'bb67ae8584caa73b', '3c6ef372fe94f82b', 'a54ff53a5f1d36f1',
    '510e527fade682d1', '9b05688c2b3e6c1f', '1f83d9abfb41bd6b', '5be0cd19137e2179',
  ].map((h) => BigInt('0x' + h));
  const rotr64 = (x, n) => ((x >> n) | (x << (64n - n))) & MASK64;

  function sha512(bytes) {
    const length = bytes.length;
    const padded = new Uint8Array((((length + 17) + 127) >> 7) << 7);
    padded.set(bytes);
    padded[length] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
    view.setUint32(padded.length - 4, (length << 3) >>> 0);
    const H = H512.slice(), W = new Array(80);
    for (let off = 0; off < padded.length; off += 128) {
      for (let t = 0; t < 16; t++) W[t] = view.getBigUint64(off + 8 * t);
      for (let t = 16; t < 80; t++) {
        const s0 = rotr64(W[t - 15], 1n) ^ rotr64(W[t - 15], 8n) ^ (W[t - 15] >> 7n);
        const s1 = rotr64(W[t - 2], 19n) ^ rotr64(W[t - 2], 61n) ^ (W[t - 2] >> 6n);
        W[t] = (W[t - 16] + s0 + W[t - 7] + s1) & MASK64;
      }
      let [a, b, c, d, e, f, g, h] = H;
      for (let t = 0; t < 80; t++) {
        const t1 = (h + (rotr64(e, 14n) ^ rotr64(e, 18n) ^ rotr64(e, 41n)) + ((e & f) ^ (~e & MASK64 & g)) + K512[t] + W[t]) & MASK64;
        const t2 = ((rotr64(a, 28n) ^ rotr64(a, 34n) ^ rotr64(a, 39n)) + ((a & b) ^ (a & c) ^ (b & c))) & MASK64;
        h = g; g = f; f = e; e = (d + t1) & MASK64; d = c; c = b; b = a; a = (t1 + t2) & MASK64;
      }
      [a, b, c, d, e, f, g, h].forEach((v, i) => { H[i] = (H[i] + v) & MASK64; });
    }
    const out = new Uint8Array(64), outView = new DataView(out.buffer);
    H.forEach((v, i) => outView.setBigUint64(8 * i, v));
    return out;
  }

  const concat = (...parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => { out.set(p, at); return at + p.length; }, 0);
    return out;
  };
  const utf8 = (text) => new TextEncoder().encode(text);

  function hmacSHA512(key, data) {
    const block = new Uint8Array(128);
    block.set(key.length > 128 ? sha512(key) : key);
    const inner = block.map((b) => b ^ 0x36), outer = block.map((b) => b ^ 0x5c);
    return sha512(concat(outer, sha512(concat(inner, data))));
  }

  // ---- the draft's string functions (LengthValue.swift) ---------------

  function prependLength(data) {
    const prefix = [];
    let length = data.length;
    do {
      prefix.push(length < 128 ? length : (length & 0x7f) | 0x80);
      length = Math.floor(length / 128);
    } while (length > 0);
    return concat(Uint8Array.from(prefix), data);
  }
  const lvCat = (...parts) => concat(...parts.map(prependLength));

  // ---- ristretto255 (RFC 9496) over edwards25519 ----------------------

  const P = (1n << 255n) - 19n;
  const mod = (a) => { const r = a % P; return r < 0n ? r + P : r; };
  function pow(base, exponent) {
    let result = 1n, b = mod(base), e = exponent;
    while (e > 0n) {
      if (e & 1n) result = (result * b) % P;
      b = (b * b) % P;
      e >>= 1n;
    }
    return result;
  }
  const D = mod(-121665n * pow(121666n, P - 2n));
  const SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;
  const SQRT_AD_MINUS_ONE = 25063068953384623474111414158702152701244531502492656460079210482610430750235n;
  const INVSQRT_A_MINUS_D = 54469307008909316920995813868745141605393597292927456921205312896311721017578n;
  const ONE_MINUS_D_SQ = 1159843021668779879193775521855586647937357759715417654439879720876111806838n;
  const D_MINUS_ONE_SQ = 40440834346308536858101042469323190826248399146238708352240133220865137265952n;

  const isNegative = (x) => (mod(x) & 1n) === 1n;
  const abs = (x) => (isNegative(x) ? mod(-x) : mod(x));

  // SQRT_RATIO_M1(u, v): (was_square, the non-negative sqrt(u/v) or sqrt(i*u/v)).
  function sqrtRatioM1(u, v) {
    u = mod(u); v = mod(v);
    const v3 = mod(v * v * v), v7 = mod(v3 * v3 * v);
    let r = mod(mod(u * v3) * pow(u * v7, (P - 5n) / 8n));
    const check = mod(v * r * r);
    const correct = check === u, flipped = check === mod(-u), flippedI = check === mod(-u * SQRT_M1);
    if (flipped || flippedI) r = mod(r * SQRT_M1);
    return { wasSquare: correct || flipped, r: abs(r) };
  }

  const bytesToNumber = (bytes) => bytes.reduceRight((n, b) => (n << 8n) | BigInt(b), 0n);
  function numberToBytes(n) {
    const out = new Uint8Array(32);
    for (let i = 0; i < 32; i++, n >>= 8n) out[i] = Number(n & 0xffn);
    return out;
  }

  // Extended coordinates (X:Y:Z:T); the unified addition of RFC 8032 §5.1.4 (complete for a = -1).
  const IDENTITY = [0n, 1n, 1n, 0n];
  function add([x1, y1, z1, t1], [x2, y2, z2, t2]) {
    const a = mod((y1 - x1) * (y2 - x2)), b = mod((y1 + x1) * (y2 + x2));
    const c = mod(t1 * 2n * D * t2), d = mod(z1 * 2n * z2);
    const e = b - a, f = d - c, g = d + c, h = b + a;
    return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
  }

  // Decode: null for a non-canonical or invalid encoding.
  function decode(bytes) {
    if (!ArrayBuffer.isView(bytes) || bytes.length !== 32) return null;
    const s = bytesToNumber(bytes);
    if (s >= P || isNegative(s)) return null;
    const ss = mod(s * s), u1 = mod(1n - ss), u2 = mod(1n + ss), u2sq = mod(u2 * u2);
    const v = mod(-(D * u1 * u1) - u2sq);
    const { wasSquare, r: invsqrt } = sqrtRatioM1(1n, v * u2sq);
    const denX = mod(invsqrt * u2), denY = mod(invsqrt * denX * v);
    const x = abs(2n * s * denX), y = mod(u1 * denY), t = mod(x * y);
    if (!wasSquare || isNegative(t) || y === 0n) return null;
    return [x, y, 1n, t];
  }

  function encode([x0, y0, z0, t0]) {
    const u1 = mod((z0 + y0) * (z0 - y0)), u2 = mod(x0 * y0);
    const { r: invsqrt } = sqrtRatioM1(1n, u1 * u2 * u2);
    const den1 = mod(invsqrt * u1), den2 = mod(invsqrt * u2), zInv = mod(den1 * den2 * t0);
    const rotate = isNegative(t0 * zInv);
    const x = rotate ? mod(y0 * SQRT_M1) : x0;
    let y = rotate ? mod(x0 * SQRT_M1) : y0;
    const denInv = rotate ? mod(den1 * INVSQRT_A_MINUS_D) : den2;
    if (isNegative(x * zInv)) y = mod(-y);
    return numberToBytes(abs(denInv * (z0 - y)));
  }

  // MAP(t), the Elligator map of RFC 9496 §4.3.4.
  function elligator(t) {
    const r = mod(SQRT_M1 * t * t), u = mod((r + 1n) * ONE_MINUS_D_SQ);
    const v = mod((-1n - r * D) * (r + D));
    const { wasSquare, r: root } = sqrtRatioM1(u, v);
    const s = wasSquare ? root : mod(-abs(root * t));
    const c = wasSquare ? P - 1n : r;
    const n = mod(c * (r - 1n) * D_MINUS_ONE_SQ - v);
    const w0 = mod(2n * s * v), w1 = mod(n * SQRT_AD_MINUS_ONE), w2 = mod(1n - s * s), w3 = mod(1n + s * s);
    return [mod(w0 * w3), mod(w2 * w1), mod(w1 * w3), mod(w0 * w2)];
  }

  // crypto_core_ristretto255_from_hash: 64 uniform bytes to an element (encoded).
  function fromHash(bytes) {
    const half = (b) => { const c = b.slice(); c[31] &= 0x7f; return mod(bytesToNumber(c)); };
    return encode(add(elligator(half(bytes.subarray(0, 32))), elligator(half(bytes.subarray(32, 64)))));
  }

  // crypto_scalarmult_ristretto255 (the scalar's top bit cleared, as
  // libsodium does): null where the draft's scalar_mult_vfy gives G.I.
  // A double and an add for each of the 255 bits, whatever the bit.
  function scalarMultiply(scalar, element) {
    const point = decode(element);
    if (!point || !ArrayBuffer.isView(scalar) || scalar.length !== 32) return null;
    const k = bytesToNumber(scalar) & ((1n << 255n) - 1n);
    let result = IDENTITY;
    for (let i = 254n; i >= 0n; i--) {
      result = add(result, result);
      const sum = add(result, point);
      result = [result, sum][Number((k >> i) & 1n)];
    }
    const out = encode(result);
    return out.every((b) => b === 0) ? null : out;
  }

  // ---- CPace (CPace.swift) ---------------------------------------------

  const DSI = utf8('CPaceRistretto255');

  function generatorString(prs, ci, sid) {
    const padding = Math.max(0, 128 - 1 - prependLength(prs).length - prependLength(DSI).length);
    return lvCat(DSI, prs, new Uint8Array(padding), ci, sid);
  }

  const generator = (prs, ci, sid) => fromHash(sha512(generatorString(prs, ci, sid)));

  // G.sample_scalar(): 32 random bytes, the bits above 252 cleared.
  function sampleScalar() {
    const scalar = crypto.getRandomValues(new Uint8Array(32));
    scalar[31] &= 0x0f;
    return scalar;
  }

  const transcriptIR = (ya, ada, yb, adb) => concat(lvCat(ya, ada), lvCat(yb, adb));

  function isLarger(a, b) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] > b[i];
    return a.length > b.length;
  }
  const orderedConcatenation = (a, b) => concat(utf8('oc'), isLarger(a, b) ? concat(a, b) : concat(b, a));
  const transcriptOC = (ya, ada, yb, adb) => orderedConcatenation(lvCat(ya, ada), lvCat(yb, adb));

  const intermediateSessionKey = (sid, k, ya, ada, yb, adb) =>
    sha512(concat(lvCat(concat(DSI, utf8('_ISK')), sid, k), transcriptIR(ya, ada, yb, adb)));

  function confirmationTag(isk, sid, share, ad) {
    return hmacSHA512(sha512(concat(utf8('CPaceMac'), sid, isk)), lvCat(share, ad));
  }

  // No early exit: every byte is compared.
  function equalBytes(a, b) {
    if (a.length !== b.length || a.length === 0) return false;
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
    return diff === 0;
  }

  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  function unhex(text, length) {
    if (typeof text !== 'string' || text.length !== 2 * length || !/^[0-9a-f]*$/.test(text)) return null;
    return Uint8Array.from(text.match(/../g) || [], (h) => parseInt(h, 16));
  }

  // ---- the exchange on `ctl` (PAKEHandshake.swift, WireProtocol §4c) ----
  //
  //     initiator (offerer)                responder
  //     {step:share, y:Ya}       ───────▶
  //                              ◀───────  {step:share_confirm, y:Yb, tag:Tb}
  //     checks Tb; {step:confirm, tag:Ta} ──▶  checks Ta
  //
  // `prs`: the whole code ("123456-brave-calm"); `binding`: the room id and
  // both SHA-256 certificate fingerprints (raw bytes), offerer first. Any
  // message out of turn, malformed, replayed or reflected fails it, and a
  // failure is final. `outcome`: null, 'verified', 'unproven' or 'failed'.
  function handshake(initiator, prs, binding) {
    const sid = utf8(binding.roomId);
    const ci = lvCat(utf8('chatcli-pake-v1'), binding.offererFingerprint, binding.answererFingerprint);
    const g = generator(utf8(prs), ci, sid);
    let scalar = null, share = null;
    while (!share) { scalar = sampleScalar(); share = scalarMultiply(scalar, g); }   // a zero scalar: 2^-252
    let state = initiator ? 'idle' : 'awaitingShare', isk = null, peerShare = null;
    const exchange = { outcome: null };
    const settle = (outcome) => { exchange.outcome = outcome; state = 'done'; scalar.fill(0); };
    const fail = () => { settle('failed'); return { type: 'pake', step: 'failed' }; };
    const tag = (y) => confirmationTag(isk, sid, y, new Uint8Array(0));
    const keyWith = (y) => {
      const k = scalarMultiply(scalar, y);
      scalar.fill(0);
      return k;
    };
    exchange.start = () => {
      if (state !== 'idle') return null;
      state = 'awaitingShareAndConfirm';
      return { type: 'pake', step: 'share', y: hex(share) };
    };
    // A `pake` message from the peer (already JSON-parsed); the reply, if any.
    exchange.receive = (m) => {
      if (state === 'done') return null;
      const step = m && m.step;
      if (step === 'failed') { settle('failed'); return null; }
      if (step === 'unproven') { settle('unproven'); return null; }
      if (state === 'awaitingShare' && step === 'share') {
        const ya = unhex(m.y, 32);
        const k = ya && !equalBytes(ya, share) ? keyWith(ya) : null;
        if (!k) return fail();
        isk = intermediateSessionKey(sid, k, ya, new Uint8Array(0), share, new Uint8Array(0));
        peerShare = ya;
        state = 'awaitingConfirm';
        return { type: 'pake', step: 'share_confirm', y: hex(share), tag: hex(tag(share)) };
      }
      if (state === 'awaitingShareAndConfirm' && step === 'share_confirm') {
        const yb = unhex(m.y, 32), tb = unhex(m.tag, 64);
        const k = yb && tb && !equalBytes(yb, share) ? keyWith(yb) : null;
        if (!k) return fail();
        isk = intermediateSessionKey(sid, k, share, new Uint8Array(0), yb, new Uint8Array(0));
        if (!equalBytes(tb, tag(yb))) return fail();
        settle('verified');
        return { type: 'pake', step: 'confirm', tag: hex(tag(share)) };
      }
      if (state === 'awaitingConfirm' && step === 'confirm') {
        const ta = unhex(m.tag, 64);
        if (!ta || !equalBytes(ta, tag(peerShare))) return fail();
        settle('verified');
        return null;
      }
      return fail();
    };
    // The peer went on without the PAKE (its `hello` came first, or nothing within the deadline).
    exchange.peerSkipped = () => {
      if (state === 'done') return null;
      settle('unproven');
      return { type: 'pake', step: 'unproven' };
    };
    return exchange;
  }

  self.CPace = Object.freeze({
    sha512, hmacSHA512, prependLength, lvCat, isLarger, orderedConcatenation, transcriptIR, transcriptOC,
    generatorString, generator, fromHash, scalarMultiply, sampleScalar, intermediateSessionKey, confirmationTag,
    equalBytes, hex, unhex, utf8, concat, handshake,
  });
})();
