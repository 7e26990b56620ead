import { COSIGNATURE_V1_TYPE, noteKeyId } from './c2sp-checkpoint.ts';

/**
 * The witnesses the result log asks to cosign its checkpoints (C2SP tlog-witness), as the
 * LOG_WITNESSES setting names them: entries separated by commas, each the witness's verifier key
 * in C2SP signed-note form and its submission prefix, separated by a space:
 *
 *   <name>+<key id, 8 hex>+<base64 of 0x04 || Ed25519 public key> https://witness.example/prefix
 *
 * The settings check a list when they load.
 */
export interface Witness {
  name: string;
  /** The 4-byte key id that starts each of its signatures: SHA-256(name || 0x0A || 0x04 || key)[:4]. */
  keyId: Buffer;
  publicKey: Buffer;
  /** The submission prefix, without a trailing slash: add-checkpoint is POSTed to `${submissionUrl}/add-checkpoint`. */
  submissionUrl: string;
}

export type WitnessListParse = { witnesses: Witness[] } | { reason: string };

export function parseWitnessList(text: string): WitnessListParse {
  const witnesses: Witness[] = [];
  for (const entry of text.split(',').map((e) => e.trim()).filter((e) => e.length > 0)) {
    const parsed = parseWitnessEntry(entry);
    if ('reason' in parsed) return { reason: `"${entry.slice(0, 120)}": ${parsed.reason}` };
    if (witnesses.some((w) => w.name === parsed.witness.name)) return { reason: `the witness ${parsed.witness.name} is named twice` };
    witnesses.push(parsed.witness);
  }
  return { witnesses };
}

function parseWitnessEntry(entry: string): { witness: Witness } | { reason: string } {
  const [vkey, url, ...rest] = entry.split(/\s+/);
  if (!vkey || !url || rest.length > 0) return { reason: 'an entry is a verifier key and a submission URL, separated by a space' };
  const key = parseCosignatureVkey(vkey);
  if ('reason' in key) return key;
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    return { reason: `"${url}" is not a URL` };
  }
  if (parsedUrl.protocol !== 'https:' && parsedUrl.protocol !== 'http:') return { reason: `the submission URL must be http or https, not ${parsedUrl.protocol}` };
  if (parsedUrl.search || parsedUrl.hash || parsedUrl.username || parsedUrl.password) return { reason: 'the submission URL is a prefix: no query, fragment or credentials' };
  return { witness: { ...key, submissionUrl: parsedUrl.href.replace(/\/+$/, '') } };
}

/** A verifier key `<name>+<hex key id>+<base64(type || key)>` of a cosignature/v1 (Ed25519) key. */
export function parseCosignatureVkey(vkey: string): Omit<Witness, 'submissionUrl'> | { reason: string } {
  const parts = vkey.split('+');
  // The name may itself hold no "+"; base64 may, so the key is everything after the second "+".
  if (parts.length < 3) return { reason: 'a verifier key is <name>+<key id>+<base64 key>' };
  const [name, idHex] = parts as [string, string];
  const keyB64 = parts.slice(2).join('+');
  if (!/^[\x21-\x7e]+$/.test(name)) return { reason: 'the key name is printable ASCII without spaces' };
  if (!/^[0-9a-f]{8}$/.test(idHex)) return { reason: 'the key id is 8 lowercase hex characters' };
  const typed = Buffer.from(keyB64, 'base64');
  if (typed.toString('base64') !== keyB64 || typed.length !== 33) return { reason: 'the key is standard base64 of a type byte and 32 bytes' };
  if (typed[0] !== COSIGNATURE_V1_TYPE) return { reason: `the key's type is 0x${typed[0]!.toString(16).padStart(2, '0')}; a witness cosigns with a cosignature/v1 key (type 0x04)` };
  const publicKey = typed.subarray(1);
  const keyId = noteKeyId(name, COSIGNATURE_V1_TYPE, publicKey);
  if (keyId.toString('hex') !== idHex) return { reason: `the key id ${idHex} is not the id of this name and key (${keyId.toString('hex')})` };
  return { name, keyId, publicKey };
}
