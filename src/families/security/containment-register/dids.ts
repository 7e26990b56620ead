import { ed25519KeyOfDidKey, EVM_ADDRESS, verifyBySigner } from '../../../kernel/offline-signatures.ts';

export type DidCheck = { syntax: 'valid'; method: string; resolution: 'decoded offline' | 'unresolved (offline)' } | { syntax: 'invalid'; reason: string };

/** W3C DID Core syntax: did:<method>:<method-specific-id>. */
const DID_SYNTAX = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}|:)*[A-Za-z0-9._-]$/;

/**
 * Checks a DID without the network: did:key is decoded (it carries its key), did:pkh is parsed
 * (CAIP-10 account), and any other method (did:web, ...) is syntax-checked and reported as not
 * resolved, never as verified.
 */
export function checkDid(did: string | undefined): DidCheck {
  if (did === undefined || did === '') return { syntax: 'invalid', reason: 'missing' };
  if (!DID_SYNTAX.test(did)) return { syntax: 'invalid', reason: 'not a DID (did:<method>:<id>)' };
  const method = did.split(':')[1]!;
  if (method === 'key') {
    const decoded = ed25519KeyOfDidKey(did);
    return 'key' in decoded ? { syntax: 'valid', method, resolution: 'decoded offline' } : { syntax: 'invalid', reason: decoded.reason };
  }
  if (method === 'pkh') return evmAddressOfDidPkh(did) ? { syntax: 'valid', method, resolution: 'decoded offline' } : { syntax: 'invalid', reason: 'did:pkh must be did:pkh:eip155:<chain id>:<0x address>' };
  return { syntax: 'valid', method, resolution: 'unresolved (offline)' };
}

/**
 * The one text of a DID among those that name the same subject: percent-encoded characters that
 * need no encoding decoded, the hex digits of the others in upper case (RFC 3986 section 6.2.2);
 * a did:web host in lower case (DNS names are case-insensitive), without the trailing dot of a
 * fully qualified name, and without its port when that is 443, the port did:web resolves on
 * (a port written with leading zeros written without); a did:pkh chain id without leading zeros
 * and its EVM address in lower case (its mixed case is only a checksum). Anything that is not a
 * DID is returned as it is.
 */
export function canonicalDid(did: string): string {
  if (!DID_SYNTAX.test(did)) return did;
  const text = did.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9._-]$/.test(char) ? char : encoded.toUpperCase();
  });
  const [, method, ...segments] = text.split(':');
  if (method === 'web' && segments.length > 0) segments[0] = canonicalWebHost(segments[0]!);
  if (method === 'pkh' && segments[0] === 'eip155' && segments.length === 3) {
    if (/^\d+$/.test(segments[1]!)) segments[1] = BigInt(segments[1]!).toString();
    segments[2] = segments[2]!.toLowerCase();
  }
  return ['did', method, ...segments].join(':');
}

/** A did:web host segment (its port, if any, after an encoded colon), percent-encodings already normalised. */
function canonicalWebHost(segment: string): string {
  const [written, ...after] = segment.split('%3A');
  const lowered = written!.replace(/%[0-9A-F]{2}|[A-Z]+/g, (part) => (part.startsWith('%') ? part : part.toLowerCase()));
  // Parsed and stripped of trailing dots until nothing changes: the parser reads `0` as the
  // address 0.0.0.0 and maps an ideographic full stop to a dot, so one pass may leave work for a
  // second, and canonical twice must be canonical once.
  const withoutDot = (host: string) => host.replace(/\.+$/, '') || host;
  let host = lowered;
  for (let pass = 0; pass < 4; pass++) {
    const next = withoutDot(resolvedHost(host));
    if (next === host) break;
    host = next;
  }
  if (after.length !== 1 || !/^\d+$/.test(after[0]!)) return [host, ...after].join('%3A');
  const port = BigInt(after[0]!).toString();
  return port === '443' ? host : `${host}%3A${port}`;
}

/**
 * A signature by `signer` over `message`, checked offline: a did:key with Ed25519, a
 * did:pkh:eip155 or an EVM address with EIP-191 (a raw Ed25519 key in hex or base64 also works).
 */
export function verifyByDid(signer: string, message: string, signature: string): ReturnType<typeof verifyBySigner> {
  return verifyBySigner(evmAddressOfDidPkh(signer) ?? signer, message, signature);
}

export function evmAddressOfDidPkh(did: string): string | undefined {
  const m = /^did:pkh:eip155:(\d{1,32}):(0x[0-9a-fA-F]{40})$/.exec(did);
  return m && EVM_ADDRESS.test(m[2]!) ? m[2] : undefined;
}

/**
 * The host a did:web resolver reaches for a written host: the WHATWG URL host parser (UTS #46
 * mapping, punycode), so a full-width or ideographic dot, a soft hyphen or a Unicode letter name
 * the host their ASCII form names (found by fuzzing: `victim%EF%BC%8Eexample` was a second agent).
 * A host the parser refuses, or one holding a character that would make it user info, a path or
 * a query, is kept as written.
 */
function resolvedHost(written: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(written);
  } catch {
    return written;
  }
  if (/[@/\\?#:%\s]/.test(decoded)) return written;
  let hostname: string;
  try {
    hostname = new URL(`https://${decoded}/`).hostname;
  } catch {
    return written;
  }
  return /^[a-z0-9._-]+$/.test(hostname) ? hostname : written;
}
