import { ed25519 } from '@noble/curves/ed25519.js';
import { privateKeyToAccount } from 'viem/accounts';
import { canonicalText } from '../../src/signing/rfc8785.ts';

/** Fixed test keys: signatures in these tests are reproducible byte for byte. */

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function encodeBase58(bytes: Uint8Array): string {
  let value = 0n;
  for (const b of bytes) value = value * 256n + BigInt(b);
  let text = '';
  while (value > 0n) {
    text = BASE58[Number(value % 58n)] + text;
    value /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    text = `1${text}`;
  }
  return text;
}

export interface EdSigner {
  seed: Uint8Array;
  publicKey: Uint8Array;
  hex: string;
  base64: string;
  didKey: string;
  sign(message: string | Uint8Array): string;
}

export function edSigner(seedByte: number): EdSigner {
  const seed = new Uint8Array(32).fill(seedByte);
  const publicKey = ed25519.getPublicKey(seed);
  const multicodec = new Uint8Array([0xed, 0x01, ...publicKey]);
  return {
    seed,
    publicKey,
    hex: Buffer.from(publicKey).toString('hex'),
    base64: Buffer.from(publicKey).toString('base64'),
    didKey: `did:key:z${encodeBase58(multicodec)}`,
    sign: (message) => Buffer.from(ed25519.sign(typeof message === 'string' ? Buffer.from(message, 'utf8') : message, seed)).toString('hex'),
  };
}

export function evmSigner(keyByte: number) {
  const account = privateKeyToAccount(`0x${keyByte.toString(16).padStart(2, '0').repeat(32)}`);
  return { address: account.address, lower: account.address.toLowerCase(), sign: (message: string) => account.signMessage({ message }) };
}

/** A signed outcome event as agent-reputation expects it, signed over the canonical event. */
export async function signedOutcome(
  event: Record<string, unknown>,
  signer: EdSigner | ReturnType<typeof evmSigner>,
): Promise<{ event: Record<string, unknown>; signature: string; signer: string }> {
  const text = canonicalText(event);
  if ('address' in signer) return { event, signature: await signer.sign(text), signer: signer.address };
  return { event, signature: signer.sign(text), signer: signer.hex };
}
