import { hash } from 'node:crypto';
import { uuidText } from './uuid-bytes.ts';

/** Namespace of every event id this service derives (a fixed UUID, part of the log format). */
const EVENT_ID_NAMESPACE = '6f1c2b1e-2a57-4f6e-9c39-0b8f5f4f2d11';
/** The namespace's 16 bytes, parsed once: RFC 4122 v5 hashes them before the name. */
const NAMESPACE_BYTES = Buffer.from(EVENT_ID_NAMESPACE.replaceAll('-', ''), 'hex');

/**
 * Deterministic event id: the same logical append (same origin, type and index) always gets the
 * same id, so a retried append is recognised as the same append by every adapter.
 *
 * UUID v5 (RFC 4122 section 4.3) of `origin NUL type NUL index` in EVENT_ID_NAMESPACE, built with
 * node:crypto's SHA-1 rather than the uuid package, which re-parses the namespace and copies the
 * name byte by byte on every call (three ids per paid call). The ids are part of the log format:
 * test/events/event-ids.test.ts checks them against the uuid package's v5.
 */
export function eventId(origin: string, type: string, index = 0): string {
  const name = `${origin}\u0000${type}\u0000${index}`;
  const bytes = Buffer.allocUnsafe(16 + Buffer.byteLength(name, 'utf8'));
  NAMESPACE_BYTES.copy(bytes, 0);
  bytes.write(name, 16, 'utf8');
  // One-shot hash(): no Hash object per id.
  const digest = hash('sha1', bytes, 'buffer');
  // Version 5 in the high nibble of byte 6, variant 10xx in the high bits of byte 8.
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  return uuidText(digest, 0);
}
