import { createHash, verify as edVerify, type KeyObject } from 'node:crypto';
import { publicKeyFromHex } from '../signing/rfc8032.ts';

/**
 * Checkpoints in the C2SP tlog-checkpoint format, as a C2SP signed note: the body
 * "<origin>\n<tree size>\n<base64 root hash>\n", a blank line, then signature lines
 * "— <key name> <base64(4-byte key id || signature)>\n". The log signs twice with its one key:
 * an Ed25519 note signature (type 0x01) over the body, and a timestamped cosignature (C2SP
 * tlog-cosignature, type 0x04) over "cosignature/v1\ntime <t>\n" + body, which is what binds
 * the checkpoint to a moment: a result in the tree existed no later than that time.
 */
export const ED25519_NOTE_TYPE = 0x01;
export const COSIGNATURE_V1_TYPE = 0x04;
const EM_DASH = '\u2014';

export interface Checkpoint {
  origin: string;
  treeSize: number;
  /** Lowercase hex. */
  rootHash: string;
  /** Unix seconds, from the cosignature. */
  issuedAt: number;
}

export interface NoteSigner {
  /** The key name in signature lines: the log's origin. */
  name: string;
  publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export function checkpointBody(origin: string, treeSize: number, rootHashHex: string): string {
  if (!/^[^\s+]+$/u.test(origin)) throw new Error(`a checkpoint origin has no spaces or plus signs: ${origin}`);
  return `${origin}\n${treeSize}\n${Buffer.from(rootHashHex, 'hex').toString('base64')}\n`;
}

/** The 4-byte key id of C2SP signed-note: SHA-256(name || 0x0A || type || public key)[:4]. */
export function noteKeyId(name: string, type: number, publicKey: Uint8Array): Buffer {
  return createHash('sha256').update(name, 'utf8').update(Uint8Array.of(0x0a, type)).update(publicKey).digest().subarray(0, 4);
}

export function cosignedMessage(body: string, timestamp: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${body}`, 'utf8');
}

export function signCheckpoint(signer: NoteSigner, origin: string, treeSize: number, rootHashHex: string, issuedAt: number): string {
  const body = checkpointBody(origin, treeSize, rootHashHex);
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(issuedAt));
  const cosig = signer.sign(cosignedMessage(body, issuedAt));
  return `${body}\n${noteSignatureLine(signer, body)}${signatureLineOf(signer, COSIGNATURE_V1_TYPE, Buffer.concat([time, cosig]))}`;
}

/** The Ed25519 signature line (type 0x01) of a signed note whose text is `text`. */
export function noteSignatureLine(signer: NoteSigner, text: string): string {
  return signatureLineOf(signer, ED25519_NOTE_TYPE, signer.sign(Buffer.from(text, 'utf8')));
}

function signatureLineOf(signer: NoteSigner, type: number, payload: Uint8Array): string {
  return `${EM_DASH} ${signer.name} ${Buffer.concat([noteKeyId(signer.name, type, signer.publicKey), payload]).toString('base64')}\n`;
}

/** A signed note's signature line `— <key name> <base64(key id || signature)>`, or undefined for any other line. */
export function signatureLine(line: string): { name: string; payload: Buffer } | undefined {
  const match = SIGNATURE_LINE.exec(line);
  return match ? { name: match[1]!, payload: Buffer.from(match[2]!, 'base64') } : undefined;
}
const SIGNATURE_LINE = new RegExp(`^${EM_DASH} (\\S+) ([A-Za-z0-9+/=]+)$`, 'u');

/** The note's body: everything up to and with the newline before the blank line that starts the signatures. */
export const noteBody = (note: string): string => note.slice(0, note.lastIndexOf('\n\n') + 1);

/**
 * The time of a timestamped cosignature (C2SP tlog-cosignature) whose payload is key id (4 bytes),
 * time (8, big-endian seconds) and Ed25519 signature over "cosignature/v1\ntime <t>\n" + body;
 * undefined when the payload is not one of `keyId` or does not verify with `key`.
 */
export function cosignatureTime(body: string, payload: Buffer, keyId: Uint8Array, key: KeyObject): number | undefined {
  if (payload.length !== 76 || !payload.subarray(0, 4).equals(keyId)) return undefined;
  const timestamp = Number(payload.readBigUInt64BE(4));
  return edVerify(null, cosignedMessage(body, timestamp), key, payload.subarray(12)) ? timestamp : undefined;
}

export type CheckpointCheck = { valid: true; checkpoint: Checkpoint } | { valid: false; reason: string };

/**
 * Opens a signed checkpoint with the log's key: both signature lines of `keyName` must be present
 * and verify. Signature lines of other keys (witnesses) are ignored, as the format requires.
 */
export function openCheckpoint(note: string, keyName: string, publicKeyHex: string): CheckpointCheck {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) return { valid: false, reason: 'not a signed note (no blank line before the signatures, or no final newline)' };
  const body = note.slice(0, split + 1);
  const lines = body.split('\n');
  if (lines.length < 4) return { valid: false, reason: 'a checkpoint body has an origin, a tree size and a root hash' };
  const [origin, sizeText, rootB64] = lines as [string, string, string];
  if (!/^(0|[1-9][0-9]{0,15})$/.test(sizeText)) return { valid: false, reason: `tree size "${sizeText}" is not a decimal number` };
  const root = Buffer.from(rootB64, 'base64');
  if (root.length !== 32 || root.toString('base64') !== rootB64) return { valid: false, reason: 'the root hash is not 32 bytes of standard base64' };
  const publicKey = Buffer.from(publicKeyHex, 'hex');
  const key = publicKeyFromHex(publicKeyHex);
  let noteSigned = false;
  let issuedAt: number | undefined;
  const signatureId = noteKeyId(keyName, ED25519_NOTE_TYPE, publicKey);
  const cosignatureId = noteKeyId(keyName, COSIGNATURE_V1_TYPE, publicKey);
  for (const line of note.slice(split + 2).split('\n').filter((l) => l.length > 0)) {
    const signature = signatureLine(line);
    if (!signature) return { valid: false, reason: `malformed signature line: ${line.slice(0, 80)}` };
    if (signature.name !== keyName) continue;
    const { payload } = signature;
    const id = payload.subarray(0, 4);
    if (id.equals(signatureId) && payload.length === 68) {
      if (!edVerify(null, Buffer.from(body, 'utf8'), key, payload.subarray(4))) return { valid: false, reason: 'the log signature does not verify' };
      noteSigned = true;
    } else if (id.equals(cosignatureId) && payload.length === 76) {
      issuedAt = cosignatureTime(body, payload, cosignatureId, key);
      if (issuedAt === undefined) return { valid: false, reason: 'the timestamped cosignature does not verify' };
    }
  }
  if (!noteSigned) return { valid: false, reason: `no valid signature by ${keyName}` };
  if (issuedAt === undefined) return { valid: false, reason: `no timestamped cosignature by ${keyName}` };
  return { valid: true, checkpoint: { origin, treeSize: Number(sizeText), rootHash: root.toString('hex'), issuedAt } };
}
