import { quoteJsonString, type JsonObject, type JsonValue } from '../../signing/rfc8785.ts';
import type { RecordedEvent } from '../port.ts';
import { crc32 } from './crc32.ts';
import { isEmptyPlainObject, jsonText, writeJson, writeUncheckedJson, type ByteTextOut } from './json-text.ts';

/**
 * One frame on disk: u32le payload length, u32le CRC-32 of the payload, then the payload.
 * Two kinds of payload:
 * - an event record: UTF-8 JSON, which always starts with `{`;
 * - a batch header: a mark, then u32le, the byte length of the event frames of one group commit
 *   that follow it. The mark is `B` for a batch written when every batch before it was synced,
 *   `P` for one written while the batch before it was still syncing (pipelined, see
 *   group-commit.ts). Appends never span batches, and a batch is written only once no batch
 *   before its predecessor is unsynced, so a crash can tear only the last batch, or the last but
 *   one when the last is a `P` batch. Recovery drops such a torn tail whole (appends stay atomic,
 *   as in EventStoreDB) and refuses anything damaged before it.
 */
export const FRAME_HEADER_BYTES = 8;
/** Larger lengths can only be a corrupt or torn header: no event is allowed to be this big. */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

interface RecordPayload {
  p: number;
  s: string;
  r: number;
  i: string;
  t: string;
  a: number;
  d: JsonValue;
  m: JsonObject;
}

const BATCH_MARK = 0x42; // 'B'
const PIPELINED_BATCH_MARK = 0x50; // 'P'
const BATCH_PAYLOAD_BYTES = 5;
export const BATCH_HEADER_BYTES = FRAME_HEADER_BYTES + BATCH_PAYLOAD_BYTES;

/**
 * Batches written and not yet synced, at most (group-commit.ts): a crash can tear this many at
 * the end of the log, so recovery accepts damage within them as a torn tail.
 */
export const PIPELINE_DEPTH = 2;

export interface BatchHeader {
  /** Byte length of the event frames that follow the header. */
  length: number;
  /** Written while the batch before it was still syncing. */
  pipelined: boolean;
}

/** Writes the frame of a batch header announcing `batchBytes` of event frames at `at` of `bytes`. */
export function writeBatchHeader(bytes: Buffer, at: number, header: BatchHeader): void {
  const payload = at + FRAME_HEADER_BYTES;
  bytes[payload] = header.pipelined ? PIPELINED_BATCH_MARK : BATCH_MARK;
  bytes.writeUInt32LE(header.length, payload + 1);
  writeFrameHeader(bytes, at, BATCH_PAYLOAD_BYTES);
}

/** The batch header in a checked frame at `offset`, or undefined when it is not one. */
export function batchHeaderAt(bytes: Buffer, offset: number, payloadLength: number): BatchHeader | undefined {
  const mark = bytes[offset + FRAME_HEADER_BYTES];
  if (payloadLength !== BATCH_PAYLOAD_BYTES || (mark !== BATCH_MARK && mark !== PIPELINED_BATCH_MARK)) return undefined;
  return { length: bytes.readUInt32LE(offset + FRAME_HEADER_BYTES + 1), pipelined: mark === PIPELINED_BATCH_MARK };
}

/** The valid batch header frames that start in `bytes` at or after `from`, the first `max` of them. */
export function batchHeadersAfter(bytes: Buffer, from: number, max: number): BatchHeader[] {
  const found: BatchHeader[] = [];
  for (let at = from; at + BATCH_HEADER_BYTES <= bytes.length && found.length < max; at++) {
    if (bytes.readUInt32LE(at) !== BATCH_PAYLOAD_BYTES) continue;
    const check = checkFrame(bytes, at);
    const header = check.kind === 'ok' ? batchHeaderAt(bytes, at, check.payloadLength) : undefined;
    if (header) found.push(header);
  }
  return found;
}

/** Where a record is written: text, ASCII pieces and integers, and a check of the bytes written. */
export interface RecordOut extends ByteTextOut {
  /** writeAscii, refusing also what a JSON string escapes (below U+0020, `"`, `\\`). */
  writeUnescapedAscii(text: string): boolean;
  /** Whether the bytes written at [start, end) are ASCII, none of them below U+0020. */
  isPlainAscii(start: number, end: number): boolean;
  /** Copies bytes already encoded (UTF-8 JSON text made elsewhere) to the record. */
  writeBytes(bytes: Uint8Array): void;
}

/**
 * Writes the JSON payload of an event record: the fields of RecordPayload, in that order, exactly
 * what JSON.stringify of that object gives (see json-text.ts for why it is not called), except
 * that data or metadata that JSON cannot represent (undefined, a function) is refused here
 * instead of being written as a record that recovery would then reject as unreadable.
 *
 * The fields' strings are checked as they are copied, the data's written unchecked (see writeUncheckedJson)
 * and then checked once, as bytes, for being plain ASCII: one pass instead of a regular expression
 * per string. A record that fails (non-ASCII text, a control character) is written again, exactly.
 *
 * `data` given as bytes is its JSON text made already (EventData.dataJson), copied as it is.
 */
export function writeRecordPayload(out: RecordOut, position: number, stream: string, revision: number, id: string, type: string, recordedAt: number, data: JsonValue | Uint8Array, metadata: JsonObject | undefined): void {
  // No metadata (undefined, or null from an untyped caller) is written as {}, what readers get.
  let tail = ',"m":{}}';
  if (metadata !== undefined && metadata !== null && !isEmptyPlainObject(metadata)) {
    const m = jsonText(metadata);
    if (m === undefined || m[0] !== '{') throw notJson(id);
    tail = `,"m":${m}}`;
  }
  const at = timestampText(recordedAt);
  const start = out.cursor;
  if (data instanceof Uint8Array) {
    if (!writeHeadPlain(out, position, stream, revision, id, type, at)) {
      out.cursor = start;
      out.write(exactHead(position, stream, revision, id, type, at));
    }
    out.writeBytes(data);
    out.write(tail);
    return;
  }
  if (writeHeadPlain(out, position, stream, revision, id, type, at)) {
    const dataStart = out.cursor;
    if (!writeUncheckedJson(out, data, tail)) throw notJson(id);
    if (out.isPlainAscii(dataStart, out.cursor)) return;
  }
  out.cursor = start;
  if (!writeJson(out, data, exactHead(position, stream, revision, id, type, at), tail)) throw notJson(id);
}

/** The record's fields before its data, `{"p":…,"d":`, its strings escaped as JSON.stringify escapes them. */
function exactHead(position: number, stream: string, revision: number, id: string, type: string, at: string): string {
  return `{"p":${position},"s":${quoteJsonString(stream)},"r":${revision},"i":${quoteJsonString(id)},"t":${quoteJsonString(type)},"a":${at},"d":`;
}

/**
 * Writes the record's fields before its data, `{"p":…,"d":`, piece by piece (no string is built
 * to join them), its strings as they are, checked as they are copied. Returns false, leaving what
 * it wrote to be dropped, for strings that must be written the exact way.
 */
function writeHeadPlain(out: RecordOut, position: number, stream: string, revision: number, id: string, type: string, at: string): boolean {
  out.writeAscii('{"p":');
  out.writeInteger(position);
  out.writeAscii(',"s":"');
  if (!out.writeUnescapedAscii(stream)) return false;
  out.writeAscii('","r":');
  out.writeInteger(revision);
  out.writeAscii(',"i":"');
  if (!out.writeUnescapedAscii(id)) return false;
  out.writeAscii('","t":"');
  if (!out.writeUnescapedAscii(type)) return false;
  out.writeAscii('","a":');
  out.writeAscii(at);
  out.writeAscii(',"d":');
  return true;
}

/**
 * JSON of a record's timestamp (Date.now() of its append). Every append within the same
 * millisecond has the same one, and turning a 13-digit number into text costs about 0.2 µs:
 * the last one is kept.
 */
const lastTimestamp = { at: Number.NaN, text: '' };
function timestampText(recordedAt: number): string {
  if (recordedAt !== lastTimestamp.at) {
    // A finite number's JSON is its toString (recordedAt is Date.now(), always finite).
    lastTimestamp.text = Number.isFinite(recordedAt) ? String(recordedAt) : (jsonText(recordedAt) ?? 'null');
    lastTimestamp.at = recordedAt;
  }
  return lastTimestamp.text;
}

function notJson(id: string): TypeError {
  return new TypeError(`event ${id}: data and metadata must be JSON (metadata an object)`);
}

/** Writes length and CRC-32 of the `payloadLength` bytes of payload already at `at + 8`. */
export function writeFrameHeader(bytes: Buffer, at: number, payloadLength: number): void {
  const start = at + FRAME_HEADER_BYTES;
  bytes.writeUInt32LE(payloadLength, at);
  bytes.writeUInt32LE(crc32(bytes, start, start + payloadLength), at + 4);
}

export type FrameCheck =
  | { kind: 'ok'; payloadLength: number }
  /** Not enough bytes in `bytes` for the header or the payload it announces. */
  | { kind: 'incomplete' }
  | { kind: 'bad'; reason: string };

/** Checks the frame at `offset` of `bytes` (length bound and checksum) without parsing it. */
export function checkFrame(bytes: Buffer, offset: number): FrameCheck {
  if (bytes.length - offset < FRAME_HEADER_BYTES) return { kind: 'incomplete' };
  const length = bytes.readUInt32LE(offset);
  if (length === 0 || length > MAX_RECORD_BYTES) return { kind: 'bad', reason: `implausible record length ${length}` };
  if (bytes.length - offset - FRAME_HEADER_BYTES < length) return { kind: 'incomplete' };
  const expected = bytes.readUInt32LE(offset + 4);
  const start = offset + FRAME_HEADER_BYTES;
  const actual = crc32(bytes, start, start + length);
  if (actual !== expected) return { kind: 'bad', reason: `checksum mismatch (stored ${hex(expected)}, computed ${hex(actual)})` };
  return { kind: 'ok', payloadLength: length };
}

/** Parses a checked payload. Throws on a payload that is valid JSON but not a record. */
export function decodeRecord(bytes: Buffer, frameOffset: number, payloadLength: number): RecordedEvent {
  const start = frameOffset + FRAME_HEADER_BYTES;
  const raw: unknown = JSON.parse(bytes.toString('utf8', start, start + payloadLength));
  if (!isRecordPayload(raw)) throw new Error('payload is not an event record');
  return {
    id: raw.i,
    type: raw.t,
    data: raw.d,
    metadata: raw.m,
    stream: raw.s,
    revision: BigInt(raw.r),
    position: BigInt(raw.p),
    recordedAt: raw.a,
  };
}

// A hand-written guard rather than zod: it runs once per replayed event, and the checksum has
// already ruled out damage; this only rejects records of a foreign format.
function isRecordPayload(v: unknown): v is RecordPayload {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return (
    Number.isSafeInteger(r.p) &&
    typeof r.s === 'string' &&
    Number.isSafeInteger(r.r) &&
    typeof r.i === 'string' &&
    typeof r.t === 'string' &&
    typeof r.a === 'number' &&
    'd' in r &&
    typeof r.m === 'object' &&
    r.m !== null &&
    !Array.isArray(r.m)
  );
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}
