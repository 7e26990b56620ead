import { keccak256 } from './keccak256.ts';
import { nobleSecp256k1 } from '../../kernel/noble-secp256k1.ts';
import { nativeRecoverPublicKey, type RecoverPublicKey } from './libsecp256k1.ts';
import { RecoveryThread } from './recovery-thread.ts';

/**
 * Recovers the Ethereum address that produced a 65-byte (r, s, v) signature over a digest.
 * The native `secp256k1` package (libsecp256k1, prebuilt binary inside the package) is about
 * twenty times faster than pure JS; when its binary cannot load on this platform, @noble/curves
 * gives the same answer more slowly.
 */
function loadNative(): RecoverPublicKey | undefined {
  try {
    return nativeRecoverPublicKey();
  } catch {
    return undefined;
  }
}

const recoverWithNoble: RecoverPublicKey = (sig, recid, digest) =>
  nobleSecp256k1().Signature.fromBytes(sig, 'compact').addRecoveryBit(recid).recoverPublicKey(digest).toBytes(false);

const nativeRecover = loadNative();
export const recoveryBackend: 'native' | 'noble' = nativeRecover ? 'native' : 'noble';
const recoverPublicKey: RecoverPublicKey = nativeRecover ?? recoverWithNoble;

/** Half the curve order, big-endian: USDC's ECRecover rejects s above it (EIP-2), and so do we. */
const HALF_N = Buffer.from('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0', 'hex');
const ZERO_WORD = Buffer.alloc(32);
const SIGNATURE_HEX = /^0x[0-9a-fA-F]{130}$/;

/** The lowercase 0x address of a recovered signer, or undefined when the signature is not a valid one. */
export function recoverSigner(digest: Uint8Array, signatureHex: string, backend: RecoverPublicKey = recoverPublicKey): string | undefined {
  const parts = signatureParts(signatureHex);
  if (!parts) return undefined;
  let publicKey: Uint8Array;
  try {
    publicKey = backend(parts.signature64, parts.recid, digest);
  } catch {
    return undefined;
  }
  return addressOf(publicKey);
}

/** The process's recovery thread (with the native backend only: the pure-JS one is the fallback of a platform without the binary). */
export const recoveryThread = nativeRecover ? new RecoveryThread(nativeRecover) : undefined;

/** recoverSigner, the recovery made on the recovery thread when paid calls come together (RecoveryThread). */
export async function recoverSignerOffTheLoop(digest: Uint8Array, signatureHex: string): Promise<string | undefined> {
  if (!recoveryThread) return recoverSigner(digest, signatureHex);
  const parts = signatureParts(signatureHex);
  if (!parts) return undefined;
  const publicKey = await recoveryThread.recover(parts.signature64, parts.recid, digest);
  return publicKey && addressOf(publicKey);
}

/** The 64-byte (r, s) and the recovery id of a 65-byte signature, or undefined where USDC would refuse it. */
function signatureParts(signatureHex: string): { signature64: Uint8Array; recid: number } | undefined {
  if (!SIGNATURE_HEX.test(signatureHex)) return undefined;
  // Words compared as big-endian bytes: no BigInt parsing on the hot path.
  const sig = Buffer.from(signatureHex.slice(2), 'hex');
  const v = sig[64]!;
  const recid = v >= 27 ? v - 27 : v;
  if (recid !== 0 && recid !== 1) return undefined;
  const r = sig.subarray(0, 32);
  const s = sig.subarray(32, 64);
  if (r.equals(ZERO_WORD) || s.equals(ZERO_WORD) || s.compare(HALF_N) > 0) return undefined;
  return { signature64: sig.subarray(0, 64), recid };
}

function addressOf(publicKey: Uint8Array): string {
  return `0x${Buffer.from(keccak256(publicKey.subarray(1))).toString('hex', 12)}`;
}

/** For the cross-check tests: the pure-JS path, whichever backend is in use. */
export function recoverSignerWithNoble(digest: Uint8Array, signatureHex: string): string | undefined {
  return recoverSigner(digest, signatureHex, recoverWithNoble);
}
