import {
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  randomBytes,
  sign as edSign,
  timingSafeEqual,
  verify as edVerify,
  type KeyObject,
} from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomically } from '../atomic-file.ts';
import { sha256Hex } from './hash.ts';
import { KEY_FAMILY_NAMES, type KeyFamily } from './key-families.ts';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Fixed salt: domain separation from any other use of the same secret. */
const HKDF_SALT = Buffer.from('attestation-service/ed25519-family-keys/v1', 'utf8');

export interface FamilyKey {
  family: KeyFamily;
  publicKeyHex: string;
  keyId: string;
}

export interface Keyring {
  sign(family: KeyFamily, message: Uint8Array): string;
  /** Whether signatureHex is a valid Ed25519 signature of message under the family's public key. */
  verify(family: KeyFamily, message: Uint8Array, signatureHex: string): boolean;
  publicKey(family: KeyFamily): FamilyKey;
  /** The family whose key carries this keyId, for auditors replaying signatures. */
  familyOfKeyId(keyId: string): KeyFamily | undefined;
  all(): FamilyKey[];
}

interface LoadedKey extends FamilyKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function keyIdOf(rawPublicKey: Uint8Array): string {
  return sha256Hex(rawPublicKey).slice(0, 16);
}

export function publicKeyFromHex(hex: string): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
}

/**
 * Ed25519 signing is deterministic (RFC 8032, 5.1.6): a signature this keyring made is byte for
 * byte what signing the same message again gives, and signing costs about a third of a
 * verification. So the holder of the key checks its own signatures by signing again, and
 * anything else goes on to the full verification. The answer is verification's for every
 * input: a match is a signature made with this key, and a valid signature made with another
 * nonce is still accepted by the verification after it. The recomputed signature is compared
 * in constant time and never leaves this function.
 */
function isOwnSignature(key: LoadedKey, message: Uint8Array, signature: Buffer): boolean {
  return timingSafeEqual(edSign(null, message, key.privateKey), signature);
}

/** A family's 32-byte Ed25519 seed: HKDF-SHA256 of the secret, info = family name. */
export function familySeed(secret: string | Uint8Array, family: KeyFamily): Buffer {
  const ikm = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  return Buffer.from(hkdfSync('sha256', ikm, HKDF_SALT, Buffer.from(family, 'utf8'), 32));
}

/** Derives every family's Ed25519 key from one secret (familySeed). */
export function createKeyring(secret: string | Uint8Array): Keyring {
  const keys = new Map<KeyFamily, LoadedKey>();
  const byKeyId = new Map<string, KeyFamily>();
  for (const family of KEY_FAMILY_NAMES) {
    const seed = familySeed(secret, family);
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    const publicKey = createPublicKey(privateKey);
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519_PREFIX.length);
    const key: LoadedKey = { family, privateKey, publicKey, publicKeyHex: raw.toString('hex'), keyId: keyIdOf(raw) };
    keys.set(family, key);
    byKeyId.set(key.keyId, family);
  }
  const get = (family: KeyFamily): LoadedKey => {
    const key = keys.get(family);
    if (!key) throw new Error(`unknown key family: ${family}`);
    return key;
  };
  return {
    sign: (family, message) => edSign(null, message, get(family).privateKey).toString('hex'),
    verify: (family, message, signatureHex) => {
      if (!/^[0-9a-f]{128}$/.test(signatureHex)) return false;
      const key = get(family);
      const signature = Buffer.from(signatureHex, 'hex');
      return isOwnSignature(key, message, signature) || edVerify(null, message, key.publicKey, signature);
    },
    publicKey: (family) => {
      const { publicKeyHex, keyId } = get(family);
      return { family, publicKeyHex, keyId };
    },
    familyOfKeyId: (keyId) => byKeyId.get(keyId),
    all: () => KEY_FAMILY_NAMES.map((f) => ({ family: f, publicKeyHex: get(f).publicKeyHex, keyId: get(f).keyId })),
  };
}

export interface SecretSource {
  secret: string;
  /** Where the secret came from, for one honest log line (never the secret itself). */
  origin: 'environment' | 'generated' | 'data-dir';
  path?: string;
}

/**
 * The attestation secret: ATTESTATION_SECRET when set; otherwise one generated once into
 * DATA_DIR with mode 0600 and reused on every later start, so signatures stay verifiable.
 * `mayGenerate: false` (the data directory already holds signed history): a missing file is an
 * error, never silently replaced by a new secret that would fail every old signature.
 */
export function resolveAttestationSecret(envSecret: string | undefined, dataDir: string, options: { mayGenerate?: boolean } = {}): SecretSource {
  if (envSecret) return { secret: envSecret, origin: 'environment' };
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, SECRET_FILE_NAME);
  const existing = readSecretFile(path);
  if (existing !== undefined) return { secret: existing, origin: 'data-dir', path };
  if (options.mayGenerate === false)
    throw new MissingSecretError(`${path} is missing, but ${dataDir} holds results signed with keys derived from it: restore the file from a backup (or set ATTESTATION_SECRET to it); a new secret would make every old signature fail`);
  const secret = randomBytes(32).toString('hex');
  if (!createFileAtomically(path, `${secret}\n`, 0o600)) return resolveAttestationSecret(undefined, dataDir, options);
  return { secret, origin: 'generated', path };
}

export const SECRET_FILE_NAME = 'attestation-secret';

export class MissingSecretError extends Error {
  override name = 'MissingSecretError';
}

function readSecretFile(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (text.length >= 32) return text;
  throw new MissingSecretError(`${path} holds ${text.length} characters, not a secret of at least 32: refusing to sign with it. If the directory holds no signed results yet, delete the file to generate a new one; otherwise restore it from a backup`);
}

