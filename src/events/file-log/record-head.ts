import { decodeRecord, FRAME_HEADER_BYTES } from './framing.ts';

/** What the index needs of a record: where it sits, in which stream, under which id. */
export interface RecordHead {
  position: number;
  stream: string;
  revision: number;
  id: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
const HEAD = {
  position: Buffer.from('{"p":'),
  stream: Buffer.from(',"s":"'),
  revision: Buffer.from(',"r":'),
  id: Buffer.from(',"i":"'),
  type: Buffer.from(',"t":"'),
  recordedAt: Buffer.from(',"a":'),
  data: Buffer.from(',"d":'),
};

/**
 * Reads the head of a checked record payload (`{"p":…,"s":"…","r":…,"i":"…","t":"…`, the order
 * framing.ts writes) without parsing its data. Opening the log reads every record once to build
 * the index, and parsing each whole record (its data is most of its bytes) was most of a start:
 * 2.1 of 6.5 s at a million events, and most of the garbage collection after it. The checksum has
 * already ruled out damage; the data is parsed when the event is read. A head whose strings hold
 * escapes or non-ASCII text (never in what the service writes, possible in a client's stream
 * name) is read by parsing the record whole.
 */
export function decodeRecordHead(bytes: Buffer, frameOffset: number, payloadLength: number): RecordHead {
  const start = frameOffset + FRAME_HEADER_BYTES;
  const end = start + payloadLength;
  const cursor = { at: start };
  const head = readHead(bytes, cursor, end);
  if (head && consume(bytes, cursor, end, HEAD.type) && bytes[end - 1] === CLOSE_BRACE) return head;
  const whole = decodeRecord(bytes, frameOffset, payloadLength);
  return { position: Number(whole.position), stream: whole.stream, revision: Number(whole.revision), id: whole.id };
}

/** A record's members before its data, and where its data's text starts. */
export interface RecordFields extends RecordHead {
  type: string;
  recordedAt: number;
  dataStart: number;
}

/**
 * Reads the members of the record payload at [start, end) that come before its data
 * (`{"p":…,"s":"…","r":…,"i":"…","t":"…","a":…,"d":`), when they are in the plain form the
 * service writes (strings of printable ASCII without escapes, integers); undefined otherwise.
 */
export function readRecordFields(bytes: Buffer, start: number, end: number): RecordFields | undefined {
  const cursor = { at: start };
  const head = readHead(bytes, cursor, end);
  const type = head && consume(bytes, cursor, end, HEAD.type) ? asciiString(bytes, cursor, end) : undefined;
  const recordedAt = type !== undefined && consume(bytes, cursor, end, HEAD.recordedAt) ? safeInteger(bytes, cursor, end) : undefined;
  if (head === undefined || type === undefined || recordedAt === undefined || !consume(bytes, cursor, end, HEAD.data)) return undefined;
  // Not `{ ...head, type, ... }`: members added after a leading spread take V8's slow path (context.ts).
  return { position: head.position, stream: head.stream, revision: head.revision, id: head.id, type, recordedAt, dataStart: cursor.at };
}

function readHead(bytes: Buffer, cursor: { at: number }, end: number): RecordHead | undefined {
  const position = consume(bytes, cursor, end, HEAD.position) ? safeInteger(bytes, cursor, end) : undefined;
  const stream = position !== undefined && consume(bytes, cursor, end, HEAD.stream) ? asciiString(bytes, cursor, end) : undefined;
  const revision = stream !== undefined && consume(bytes, cursor, end, HEAD.revision) ? safeInteger(bytes, cursor, end) : undefined;
  const id = revision !== undefined && consume(bytes, cursor, end, HEAD.id) ? asciiString(bytes, cursor, end) : undefined;
  return id === undefined ? undefined : { position: position!, stream: stream!, revision: revision!, id };
}

/** Steps over `text` when the payload continues with it; never reads past the payload's end. */
function consume(bytes: Buffer, cursor: { at: number }, end: number, text: Buffer): boolean {
  if (cursor.at + text.length > end) return false;
  for (let i = 0; i < text.length; i++) if (bytes[cursor.at + i] !== text[i]) return false;
  cursor.at += text.length;
  return true;
}

function safeInteger(bytes: Buffer, cursor: { at: number }, end: number): number | undefined {
  let value = 0;
  let digits = 0;
  for (; cursor.at < end && digits <= 15; cursor.at++, digits++) {
    const byte = bytes[cursor.at]!;
    if (byte < 0x30 || byte > 0x39) break;
    value = value * 10 + (byte - 0x30);
  }
  return digits > 0 && digits <= 15 ? value : undefined;
}

/** The text up to the closing quote when it is plain printable ASCII; undefined otherwise (read whole). */
function asciiString(bytes: Buffer, cursor: { at: number }, end: number): string | undefined {
  const from = cursor.at;
  for (let at = from; at < end; at++) {
    const byte = bytes[at]!;
    if (byte === QUOTE) {
      cursor.at = at + 1;
      return bytes.toString('latin1', from, at);
    }
    if (byte === BACKSLASH || byte < 0x20 || byte >= 0x80) return undefined;
  }
  return undefined;
}
