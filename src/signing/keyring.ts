import {
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  randomBytes,
  sign as signWithCallback,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomically } from '../atomic-file.ts';
import { sha256Hex } from './hash.ts';
import { KEY_FAMILY_NAMES, type KeyFamily } from './key-families.ts';
import { ed25519Signer, publicKeyFromHex, SPKI_ED25519_PREFIX, verifyEd25519, type Ed25519Sign } from './rfc8032.ts';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** Fixed salt: domain separation from any other use of the same secret. */
const HKDF_SALT = Buffer.from('attestation-service/ed25519-family-keys/v1', 'utf8');

export interface FamilyKey {
  family: KeyFamily;
  publicKeyHex: string;
  keyId: string;
}

/** One key of the key history: a family's key of one generation, with its validity window. */
export interface HistoricKey extends FamilyKey {
  generation: number;
  /** Unix seconds from which results are signed with it (0: since the beginning). */
  validFrom: number;
  /** Unix seconds from which the next generation signs; null while it is the current key. */
  validUntil: number | null;
}

export interface Keyring {
  /**
   * Signs with the family's key valid at `at` (Unix seconds; by default now). A time past is for
   * a record first signed then and answered again as it was: Ed25519 signatures are
   * deterministic, so the key of its time gives the very signature first given.
   */
  sign(family: KeyFamily, message: Uint8Array, at?: number): string;
  /**
   * sign(), with the signature made on libuv's thread pool (node:crypto's one-shot sign given a
   * callback), for a message so large that hashing it twice would hold the event loop: an 11 MB
   * record took 70-220 ms there. The key is chosen when this is called, as sign() chooses it,
   * and the signature is sign()'s own (Ed25519 is deterministic). The key stays a native key
   * object of this process: no other JavaScript thread ever holds it.
   */
  signOnThreadPool(family: KeyFamily, message: Uint8Array, at?: number): Promise<string>;
  /**
   * Whether signatureHex is a valid Ed25519 signature of message under the family's key that
   * was valid at `at` (Unix seconds); without `at`, under any of the family's keys.
   */
  verify(family: KeyFamily, message: Uint8Array, signatureHex: string, at?: number): boolean;
  /** Which of the family's keys (any generation) made this signature, if any did. */
  signerOf(family: KeyFamily, message: Uint8Array, signatureHex: string): HistoricKey | undefined;
  /** The family's key valid at `at` (by default now). */
  publicKey(family: KeyFamily, at?: number): FamilyKey;
  /** The family whose key carries this keyId (any generation), for auditors replaying signatures. */
  familyOfKeyId(keyId: string): KeyFamily | undefined;
  /** The key with this id, with its window. */
  keyById(keyId: string): HistoricKey | undefined;
  /** Every family's current key. */
  all(): FamilyKey[];
  /** Every key of every generation, oldest generation first. */
  history(): HistoricKey[];
}

interface LoadedKey extends HistoricKey {
  /** Signs with this key: libsodium where it loads, node:crypto otherwise, the same bytes either way (rfc8032.ts). */
  sign: Ed25519Sign;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function keyIdOf(rawPublicKey: Uint8Array): string {
  return sha256Hex(rawPublicKey).slice(0, 16);
}

export { publicKeyFromHex };

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
  return signature.length === 64 && timingSafeEqual(key.sign(message), signature);
}

/** A family's 32-byte Ed25519 seed: HKDF-SHA256 of the secret, info = family name. */
export function familySeed(secret: string | Uint8Array, family: KeyFamily): Buffer {
  const ikm = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  return Buffer.from(hkdfSync('sha256', ikm, HKDF_SALT, Buffer.from(family, 'utf8'), 32));
}

/** One generation of keys: its own secret, and the time from which it signs. */
export interface KeyGenerationSecret {
  generation: number;
  /** Unix seconds; generation 0 is valid from 0. */
  validFrom: number;
  secret: string | Uint8Array;
}

function loadKey(secret: string | Uint8Array, family: KeyFamily, window: Pick<HistoricKey, 'generation' | 'validFrom' | 'validUntil'>): LoadedKey {
  const seed = familySeed(secret, family);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519_PREFIX.length);
  return { family, sign: ed25519Signer(seed, privateKey), privateKey, publicKey, publicKeyHex: raw.toString('hex'), keyId: keyIdOf(raw), ...window };
}

/** Derives every family's Ed25519 key from one secret (familySeed): one generation, valid always. */
export function createKeyring(secret: string | Uint8Array): Keyring {
  return createRotatingKeyring([{ generation: 0, validFrom: 0, secret }]);
}

/**
 * A keyring of several generations (rotation by configuration: a new secret from a given time,
 * the previous generations kept to verify what they signed). It signs with the generation valid
 * now, and verifies a result against the key that was valid when it was signed.
 */
export function createRotatingKeyring(generations: readonly KeyGenerationSecret[], clock: () => number = () => Math.floor(Date.now() / 1000)): Keyring {
  const ordered = [...generations].sort((a, b) => a.validFrom - b.validFrom);
  if (ordered.length === 0 || ordered[0]!.validFrom !== 0) throw new Error('the first key generation must be valid from 0');
  ordered.forEach((g, i) => {
    if (i > 0 && g.validFrom <= ordered[i - 1]!.validFrom) throw new Error(`key generations ${ordered[i - 1]!.generation} and ${g.generation} start at the same time`);
  });
  const byGeneration = ordered.map((g, i) => {
    const window = { generation: g.generation, validFrom: g.validFrom, validUntil: ordered[i + 1]?.validFrom ?? null };
    return new Map(KEY_FAMILY_NAMES.map((family) => [family, loadKey(g.secret, family, window)] as const));
  });
  const byKeyId = new Map<string, LoadedKey>();
  for (const keys of byGeneration) for (const key of keys.values()) byKeyId.set(key.keyId, key);

  const generationAt = (at: number) => {
    let found = byGeneration[0]!;
    for (const keys of byGeneration) if (keys.values().next().value!.validFrom <= at) found = keys;
    return found;
  };
  const keyAt = (family: KeyFamily, at: number): LoadedKey => {
    const key = generationAt(at).get(family);
    if (!key) throw new Error(`unknown key family: ${family}`);
    return key;
  };
  const current = (family: KeyFamily) => keyAt(family, clock());
  const keyFor = (family: KeyFamily, at: number | undefined) => (at === undefined ? current(family) : keyAt(family, at));
  const describe = (key: LoadedKey): HistoricKey => ({ family: key.family, publicKeyHex: key.publicKeyHex, keyId: key.keyId, generation: key.generation, validFrom: key.validFrom, validUntil: key.validUntil });
  const verifyWith = (key: LoadedKey, message: Uint8Array, signature: Buffer) => isOwnSignature(key, message, signature) || verifyEd25519(message, signature, key.publicKeyHex);

  return {
    sign: (family, message, at) => keyFor(family, at).sign(message).toString('hex'),
    signOnThreadPool: (family, message, at) => {
      const { privateKey } = keyFor(family, at);
      return new Promise((resolve, reject) => signWithCallback(null, message, privateKey, (error, signature) => (error ? reject(error) : resolve(signature.toString('hex')))));
    },
    verify: (family, message, signatureHex, at) => {
      if (!/^[0-9a-f]{128}$/.test(signatureHex)) return false;
      const signature = Buffer.from(signatureHex, 'hex');
      if (at !== undefined) return verifyWith(keyAt(family, at), message, signature);
      return byGeneration.some((keys) => verifyWith(keys.get(family)!, message, signature));
    },
    signerOf: (family, message, signatureHex) => {
      if (!/^[0-9a-f]{128}$/.test(signatureHex)) return undefined;
      const signature = Buffer.from(signatureHex, 'hex');
      const key = byGeneration.map((keys) => keys.get(family)!).find((k) => verifyWith(k, message, signature));
      return key ? describe(key) : undefined;
    },
    publicKey: (family, at) => {
      const { publicKeyHex, keyId } = at === undefined ? current(family) : keyAt(family, at);
      return { family, publicKeyHex, keyId };
    },
    familyOfKeyId: (keyId) => byKeyId.get(keyId)?.family,
    keyById: (keyId) => {
      const key = byKeyId.get(keyId);
      return key ? describe(key) : undefined;
    },
    all: () => KEY_FAMILY_NAMES.map((f) => {
      const { publicKeyHex, keyId } = current(f);
      return { family: f, publicKeyHex, keyId };
    }),
    history: () => byGeneration.flatMap((keys) => [...keys.values()].map(describe)),
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
  const path = join(dataDir, SECRET_FILE_NAME);
  const existing = readSecretFile(path);
  if (existing !== undefined) return { secret: existing, origin: 'data-dir', path };
  if (options.mayGenerate === false)
    throw new MissingSecretError(`${path} is missing, but ${dataDir} holds results signed with keys derived from it: restore the file from a backup (or set ATTESTATION_SECRET to it); a new secret would make every old signature fail`);
  // Only a caller that may write the secret creates the directory (an audit never does).
  mkdirSync(dataDir, { recursive: true });
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

