import { keccak256 } from './keccak256.ts';
import type { TransferAuthorization } from '../settlers/settler.ts';

/**
 * The EIP-712 digest of an EIP-3009 TransferWithAuthorization, computed by hand: every member is
 * a static ABI word, so the encoding is six 32-byte words and viem's generic typed-data walker
 * (most of its cost) is not needed. The domain separator is the same for every payment of one
 * token, so it is computed once per (name, version, chainId, token).
 */
const encoder = new TextEncoder();
const keccakText = (text: string): Uint8Array => keccak256(encoder.encode(text));

const DOMAIN_TYPEHASH = keccakText('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)');
/** The EIP-712 type the payer signs, in the shape wallets and viem take; the typehash derives from it. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export const TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccakText(
  `TransferWithAuthorization(${TRANSFER_WITH_AUTHORIZATION_TYPES.TransferWithAuthorization.map((m) => `${m.type} ${m.name}`).join(',')})`,
);

export interface TokenDomain {
  name: string;
  version: string;
  chainId: bigint;
  verifyingContract: string;
}

const UINT256_MAX = (1n << 256n) - 1n;

function writeUint(out: Uint8Array, offset: number, value: bigint): void {
  if (value < 0n || value > UINT256_MAX) throw new RangeError('value does not fit in uint256');
  // One hex conversion instead of 32 BigInt shifts: this runs three times per paid call.
  out.set(Buffer.from(value.toString(16).padStart(64, '0'), 'hex'), offset);
}

function writeHex(out: Uint8Array, offset: number, hex: string, bytes: number): void {
  // Right-aligned in its word: addresses are left-padded with zeros as ABI encoding wants.
  const start = offset + 32 - bytes;
  const decoded = Buffer.from(hex.slice(2), 'hex');
  if (decoded.length === bytes && hex.length === 2 + bytes * 2) out.set(decoded, start);
  // Not well-formed hex (callers validate first): byte by byte, as before, rather than throw.
  else for (let i = 0; i < bytes; i++) out[start + i] = parseInt(hex.slice(2 + i * 2, 4 + i * 2), 16);
}

const domainSeparators = new Map<string, Uint8Array>();

export function domainSeparator(domain: TokenDomain): Uint8Array {
  const key = `${domain.name}\u0000${domain.version}\u0000${domain.chainId}\u0000${domain.verifyingContract.toLowerCase()}`;
  let separator = domainSeparators.get(key);
  if (!separator) {
    const words = new Uint8Array(32 * 5);
    words.set(DOMAIN_TYPEHASH, 0);
    words.set(keccakText(domain.name), 32);
    words.set(keccakText(domain.version), 64);
    writeUint(words, 96, domain.chainId);
    writeHex(words, 128, domain.verifyingContract, 20);
    separator = keccak256(words);
    domainSeparators.set(key, separator);
  }
  return separator;
}

export function transferAuthorizationDigest(domain: TokenDomain, authorization: TransferAuthorization): Uint8Array {
  const struct = new Uint8Array(32 * 7);
  struct.set(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, 0);
  writeHex(struct, 32, authorization.from, 20);
  writeHex(struct, 64, authorization.to, 20);
  writeUint(struct, 96, BigInt(authorization.value));
  writeUint(struct, 128, BigInt(authorization.validAfter));
  writeUint(struct, 160, BigInt(authorization.validBefore));
  writeHex(struct, 192, authorization.nonce, 32);
  const message = new Uint8Array(2 + 32 + 32);
  message[0] = 0x19;
  message[1] = 0x01;
  message.set(domainSeparator(domain), 2);
  message.set(keccak256(struct), 34);
  return keccak256(message);
}

/** CAIP-2 "eip155:<id>" -> chain id. */
export function chainIdOf(network: string): bigint {
  const m = /^eip155:(\d+)$/.exec(network);
  if (!m) throw new Error(`not an EVM network: ${network}`);
  return BigInt(m[1]!);
}
