// Verifies a result bundle (GET /v1/log/result/{sha256}) with nothing but the platform:
// WebCrypto for SHA-256 and Ed25519 (tweetnacl as a fallback where a browser lacks Ed25519),
// and its own RFC 8785 canonicalisation. It shares no code with the service, on purpose: a
// verifier that ran the signer's code would check the signer against itself.

const encoder = new TextEncoder();
const subtle = globalThis.crypto.subtle;

/** RFC 8785: JSON.stringify's number and string forms, object members sorted by UTF-16 code units. */
export function canonicalize(value) {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('RFC 8785 has no form for NaN or Infinity');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalize).join(',')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalize(value[k])}`).join(',')}}`;
  }
  throw new Error(`no JSON form for a ${typeof value}`);
}

export const toHex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
export function fromHex(hex) {
  if (typeof hex !== 'string' || !/^([0-9a-f]{2})*$/.test(hex)) throw new Error('not lowercase hex');
  return Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
}
const fromBase64 = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

export const sha256 = async (bytes) => new Uint8Array(await subtle.digest('SHA-256', bytes));

export async function ed25519Verify(publicKey, message, signature) {
  try {
    const key = await subtle.importKey('raw', publicKey, { name: 'Ed25519' }, false, ['verify']);
    return await subtle.verify({ name: 'Ed25519' }, key, signature, message);
  } catch (err) {
    // Browsers without Ed25519 in WebCrypto: the page loads tweetnacl as a global.
    if (globalThis.nacl?.sign?.detached?.verify) return globalThis.nacl.sign.detached.verify(message, signature, publicKey);
    throw err;
  }
}

// RFC 6962 hashing and RFC 9162 section 2.1.3.2 inclusion verification.
const leafHash = (leaf) => sha256(concat(Uint8Array.of(0), leaf));
const nodeHash = (left, right) => sha256(concat(Uint8Array.of(1), left, right));

export async function rootFromInclusion(leaf, index, size, path) {
  if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) return undefined;
  let fn = index;
  let sn = size - 1;
  let r = await leafHash(leaf);
  for (const sibling of path) {
    if (sn === 0) return undefined;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(sibling, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await nodeHash(r, sibling);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? toHex(r) : undefined;
}

// C2SP signed note: the log's Ed25519 signature (type 0x01) and its timestamped cosignature/v1 (type 0x04).
async function noteKeyId(name, type, publicKey) {
  return (await sha256(concat(encoder.encode(name), Uint8Array.of(0x0a, type), publicKey))).slice(0, 4);
}

/** A signed note's signature line `— <key name> <base64(key id || signature)>` as {name, payload}, or undefined for any other line. */
function signatureLine(line) {
  const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/u.exec(line);
  return match ? { name: match[1], payload: fromBase64(match[2]) } : undefined;
}

export async function openCheckpoint(note, publicKey) {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new Error('the checkpoint is not a signed note');
  const body = note.slice(0, split + 1);
  const [origin, sizeText, rootB64] = body.split('\n');
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText ?? '')) throw new Error('the checkpoint has no tree size');
  const root = fromBase64(rootB64 ?? '');
  if (root.length !== 32) throw new Error('the checkpoint root is not 32 bytes');
  const noteId = toHex(await noteKeyId(origin, 0x01, publicKey));
  const cosigId = toHex(await noteKeyId(origin, 0x04, publicKey));
  let signed = false;
  let issuedAt;
  for (const line of note.slice(split + 2).split('\n').filter(Boolean)) {
    const signature = signatureLine(line);
    if (!signature) throw new Error('malformed signature line');
    if (signature.name !== origin) continue;
    const { payload } = signature;
    const id = toHex(payload.slice(0, 4));
    if (id === noteId && payload.length === 68) {
      if (!(await ed25519Verify(publicKey, encoder.encode(body), payload.slice(4)))) throw new Error('the log signature does not verify');
      signed = true;
    } else if (id === cosigId && payload.length === 76) {
      issuedAt = await cosignatureTime(body, payload, publicKey);
      if (issuedAt === undefined) throw new Error('the timestamped cosignature does not verify');
    }
  }
  if (!signed) throw new Error('no valid signature of the log key');
  if (issuedAt === undefined) throw new Error('no timestamped cosignature of the log key');
  return { origin, treeSize: Number(sizeText), rootHash: toHex(root), issuedAt };
}

/**
 * A witness's verifier key, `<name>+<key id hex>+<base64(0x04 || Ed25519 key)>` (C2SP signed
 * note, cosignature/v1): its name, key id and key, the id checked against the name and key.
 */
export async function openWitnessKey(vkey) {
  const [name, idHex, ...rest] = String(vkey).split('+');
  const typed = rest.length > 0 ? fromBase64(rest.join('+')) : new Uint8Array();
  if (!name || !/^[0-9a-f]{8}$/.test(idHex ?? '') || typed.length !== 33 || typed[0] !== 0x04) throw new Error(`"${vkey}" is not a cosignature/v1 verifier key <name>+<key id>+<base64 of 0x04 and 32 bytes>`);
  const publicKey = typed.slice(1);
  const keyId = toHex(await noteKeyId(name, 0x04, publicKey));
  if (keyId !== idHex) throw new Error(`the key id of ${name} is ${keyId}, not ${idHex}`);
  return { name, keyId, publicKey };
}

/**
 * The time of a timestamped cosignature (C2SP tlog-cosignature): its payload is key id (4 bytes),
 * time (8, big-endian seconds) and Ed25519 signature over "cosignature/v1\ntime <t>\n" + body;
 * undefined when the signature does not verify with `publicKey`.
 */
async function cosignatureTime(body, payload, publicKey) {
  const time = Number(new DataView(payload.buffer, payload.byteOffset + 4, 8).getBigUint64(0));
  return (await ed25519Verify(publicKey, encoder.encode(`cosignature/v1\ntime ${time}\n${body}`), payload.slice(12))) ? time : undefined;
}

/** The time (Unix seconds) of the witness's valid cosignature on the note, or undefined when it has none. */
export async function witnessCosignedAt(note, witness) {
  const split = note.lastIndexOf('\n\n');
  const body = note.slice(0, split + 1);
  for (const line of note.slice(split + 2).split('\n')) {
    const signature = signatureLine(line);
    if (signature?.name !== witness.name) continue;
    const { payload } = signature;
    if (payload.length !== 76 || toHex(payload.slice(0, 4)) !== witness.keyId) continue;
    const time = await cosignatureTime(body, payload, witness.publicKey);
    if (time !== undefined) return time;
  }
  return undefined;
}

/** The first member a bundle must have and does not, as `result.sha256` (text, a JSON object for `record`), or undefined. */
function missingMember(bundle) {
  const result = bundle.result;
  if (result === null || typeof result !== 'object') return '`result` object';
  if (result.record === null || typeof result.record !== 'object' || Array.isArray(result.record)) return '`result.record` object';
  for (const name of ['sha256', 'ed25519Sig', 'key_id', 'key_family']) if (typeof result[name] !== 'string') return `\`result.${name}\` text`;
  return undefined;
}

// The first file a verifier tries is often the paid answer itself.
const NOT_A_BUNDLE_HINT = "a paid answer is not a bundle: save the result's bundle from GET /v1/log/result/<sha256>";

/**
 * Every check of a bundle, in order, each with what it compared. `trusted` pins the keys
 * ({signingKey, logKey}: hex): without it, the keys inside the bundle are used and the report
 * says so, since a bundle's own keys prove only that it is self-consistent.
 */
export async function verifyBundle(bundle, trusted = {}) {
  const steps = [];
  const step = (name, ok, detail) => {
    steps.push({ name, ok, detail });
    return ok;
  };
  const done = () => ({ valid: steps.every((s) => s.ok), steps });
  try {
    if (bundle?.format !== 'attestation-result-bundle/v1') return step('format', false, `not an attestation-result-bundle/v1 document (${NOT_A_BUNDLE_HINT})`), done();
    const missing = missingMember(bundle);
    if (missing) return step('format', false, `the bundle has no ${missing}`), done();
    const { result } = bundle;
    const bytes = encoder.encode(canonicalize(result.record));
    const digest = toHex(await sha256(bytes));
    if (!step('digest', digest === result.sha256, `SHA-256 of the RFC 8785 bytes of the record (${bytes.length} bytes) = ${digest}; the result says ${result.sha256}`)) return done();
    const signingKeyHex = trusted.signingKey ?? bundle.signing_key?.public_key;
    if (!step('signing key', typeof signingKeyHex === 'string', trusted.signingKey ? 'pinned by you' : 'taken from the bundle (pin it from /v1/keys/history to check who signed)')) return done();
    const signingKey = fromHex(signingKeyHex);
    const keyId = toHex(await sha256(signingKey)).slice(0, 16);
    if (!step('key id', keyId === result.key_id, `key id of the public key = ${keyId}; the result was signed with ${result.key_id}`)) return done();
    const signatureOk = await ed25519Verify(signingKey, bytes, fromHex(result.ed25519Sig));
    if (!step('signature', signatureOk, `Ed25519 over the record's RFC 8785 bytes with ${result.key_family} key ${keyId}`)) return done();
    if (!bundle.inclusion || !bundle.checkpoint) return step('inclusion', false, 'the bundle has no inclusion proof yet: fetch it again once a checkpoint covers the result'), done();
    const logKeyHex = trusted.logKey ?? bundle.log_key?.public_key;
    const checkpoint = await openCheckpoint(bundle.checkpoint, fromHex(logKeyHex));
    step('checkpoint', true, `signed by the log key (${trusted.logKey ? 'pinned by you' : 'taken from the bundle'}) for ${checkpoint.origin}: ${checkpoint.treeSize} results, issued at ${new Date(checkpoint.issuedAt * 1000).toISOString()}`);
    const { inclusion } = bundle;
    const leaf = { key_family: result.key_family, key_id: result.key_id, sha256: result.sha256 };
    const root = await rootFromInclusion(encoder.encode(canonicalize(leaf)), inclusion.leaf_index, checkpoint.treeSize, inclusion.audit_path.map(fromHex));
    step('inclusion', root === checkpoint.rootHash, `leaf ${inclusion.leaf_index} {key_family, key_id, sha256} and ${inclusion.audit_path.length} proof hashes lead to ${root ?? 'no root'}; the checkpoint's root is ${checkpoint.rootHash}`);
    for (const vkey of trusted.witnesses ?? []) {
      const witness = await openWitnessKey(vkey);
      const at = await witnessCosignedAt(bundle.checkpoint, witness);
      step(`witness ${witness.name}`, at !== undefined, at === undefined ? 'no cosignature of this witness on the checkpoint verifies with its key' : `cosigned the checkpoint at ${new Date(at * 1000).toISOString()}: it saw no other history of this log`);
    }
  } catch (err) {
    step('error', false, err instanceof Error ? err.message : String(err));
  }
  return done();
}
