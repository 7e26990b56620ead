import { BATCH_HEADER_BYTES, FRAME_HEADER_BYTES, MAX_RECORD_BYTES, writeBatchHeader, writeFrameHeader } from './framing.ts';
import { RecordTooLargeError } from './errors.ts';
import { hasQuoteOrBackslash, type TextOut } from './json-text.ts';

/** Room a fresh batch starts with: 64 one-KiB records, the size of a full batch under load. */
const INITIAL_CAPACITY = 64 * 1024 + BATCH_HEADER_BYTES;

/** Text up to this many UTF-16 units is copied in JS when ASCII, not encoded natively (see write). */
const SHORT_TEXT = 16;
/** The longest text writeAscii copies in JS (stream names, event ids and types fit). */
const ASCII_PIECE = 256;

/** Where a batch stood before an append was staged in it: what a failed append rolls back to. */
export interface StageMark {
  end: number;
  events: number;
}

/**
 * One group commit being assembled. Each append writes its records' JSON straight into one buffer,
 * behind room left for the batch header, so a batch is written with no per-event buffers and no
 * concatenation copy. Every append of the batch is acknowledged by one shared promise, settled
 * after the fdatasync that covers the whole batch.
 */
export class StagedBatch implements TextOut {
  private _bytes!: Buffer;
  /** `bytes`' whole ArrayBuffer as 32-bit words, for isPlainAscii. */
  private words!: Int32Array;
  /** End of the staged frames in `bytes`. */
  end = BATCH_HEADER_BYTES;
  /** Frame length of each staged event, in position order: the index needs them once written. */
  readonly frameLengths: number[] = [];
  /** Event type of each staged event, in the same order: live subscribers are told it without decoding. */
  readonly frameTypes: string[] = [];
  readonly durable: Promise<void>;
  /** Write position inside the record being staged (see beginRecord). */
  cursor = 0;
  private recordId = '';
  private recordType = '';
  private settle!: { resolve(): void; reject(error: Error): void };

  constructor(
    /** Position of the first event of the batch. */
    readonly firstPosition: number,
    recycled?: Buffer,
  ) {
    this.bytes = recycled ?? Buffer.allocUnsafe(INITIAL_CAPACITY);
    this.durable = new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Every batch has appends awaiting it; this only keeps a rejection that races them from
    // being reported as unhandled.
    this.durable.catch(() => {});
  }

  get bytes(): Buffer {
    return this._bytes;
  }

  set bytes(bytes: Buffer) {
    this._bytes = bytes;
    this.words = new Int32Array(bytes.buffer, 0, bytes.buffer.byteLength >>> 2);
  }

  get eventCount(): number {
    return this.frameLengths.length;
  }

  /** Bytes of the event frames (the batch header excluded). */
  get recordBytes(): number {
    return this.end - BATCH_HEADER_BYTES;
  }

  mark(): StageMark {
    return { end: this.end, events: this.frameLengths.length };
  }

  /** Starts an event record frame at the end of the batch: its JSON goes in with write(). */
  beginRecord(eventId: string, type: string): void {
    this.cursor = this.end + FRAME_HEADER_BYTES;
    this.recordId = eventId;
    this.recordType = type;
  }

  /** Appends UTF-8 text to the record begun last. */
  write(text: string): void {
    // For a few characters, a call into native code costs more than copying them.
    if (text.length <= SHORT_TEXT && this.writeAscii(text)) return;
    const written = this.cursor - this.end - FRAME_HEADER_BYTES;
    // UTF-8 needs at least one byte per UTF-16 unit: past this the record is too large for sure.
    if (written + text.length > MAX_RECORD_BYTES) throw tooLarge(this.recordId, written + Buffer.byteLength(text, 'utf8'));
    const room = this.bytes.length - this.cursor;
    // At most 3 bytes per UTF-16 unit; only count exactly when the cheap bound does not fit.
    if (room < text.length * 3) {
      const needed = Buffer.byteLength(text, 'utf8');
      if (room < needed) this.grow(this.cursor + needed);
    }
    this.cursor += this.bytes.write(text, this.cursor, 'utf8');
  }

  /**
   * Appends `text` if it is ASCII and at most ASCII_PIECE units long, copied in JS: the pieces of
   * a record head are joined in the buffer, with no string built to hold them and no call into
   * native code. Returns false, having moved nothing, otherwise.
   */
  writeAscii(text: string): boolean {
    return this.copyAscii(text, false);
  }

  /**
   * writeAscii for the content of a JSON string: refuses, besides, what JSON escapes (anything
   * below U+0020, `"`, `\\`), so what it writes is what JSON.stringify writes between the quotes.
   */
  writeUnescapedAscii(text: string): boolean {
    return this.copyAscii(text, true);
  }

  private copyAscii(text: string, unescapedOnly: boolean): boolean {
    if (text.length > ASCII_PIECE) return false;
    this.makeRoom(text.length);
    const bytes = this.bytes;
    const at = this.cursor;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit >= 0x80 || (unescapedOnly && (unit < 0x20 || unit === 0x22 || unit === 0x5c))) return false;
      bytes[at + i] = unit;
    }
    this.cursor = at + text.length;
    return true;
  }

  /** Appends the JSON of a number known to be an integer (positions, revisions). */
  writeInteger(n: number): void {
    // Non-negative integers below 2^31 (all positions and revisions in practice) digit by digit,
    // in integer arithmetic; anything else as JSON.stringify writes it.
    if (!(n >= 0 && n <= 0x7fffffff && n === Math.floor(n))) {
      this.write(String(n));
      return;
    }
    let digits = 1;
    for (let rest = n; rest >= 10; rest = (rest / 10) | 0) digits++;
    this.makeRoom(digits);
    const bytes = this.bytes;
    let at = this.cursor + digits;
    this.cursor = at;
    let rest = n | 0;
    do {
      const quotient = (rest / 10) | 0;
      bytes[--at] = 0x30 + rest - quotient * 10;
      rest = quotient;
    } while (rest > 0);
  }

  /** Appends bytes already encoded to the record begun last: one copy, nothing looked at. */
  writeBytes(bytes: Uint8Array): void {
    const written = this.cursor - this.end - FRAME_HEADER_BYTES;
    if (written + bytes.length > MAX_RECORD_BYTES) throw tooLarge(this.recordId, written + bytes.length);
    this.makeRoom(bytes.length);
    this.bytes.set(bytes, this.cursor);
    this.cursor += bytes.length;
  }

  writeUnescaped(text: string): boolean {
    if (hasQuoteOrBackslash(text)) return false;
    const start = this.cursor;
    this.write(text);
    if (this.isPlainAscii(start, this.cursor)) return true;
    this.cursor = start;
    return false;
  }

  /**
   * Whether `bytes[start, end)`, UTF-8 written by write(), is all ASCII at or above U+0020: then
   * it holds no control character, surrogate or non-ASCII text, nothing JSON would escape but
   * `"` and `\\`. Four bytes at a time: a regular expression cost about 1 ns per character, the
   * largest item of a 1 KiB append. In w - 0x20202020 the lowest byte below 0x20 gets its top bit
   * set (no borrow reaches it); with no byte below 0x20 there is no borrow at all, and exactly the
   * bytes at or above 0xA0 get it. Every non-ASCII character has a lead byte of at least 0xC2 in
   * UTF-8, so a word passes only when it is ASCII with nothing below 0x20. `words` views the whole
   * ArrayBuffer, so words are aligned by address; signed words, since a signed 32-bit load never
   * needs a double (the bits are the same).
   */
  isPlainAscii(start: number, end: number): boolean {
    const bytes = this.bytes;
    const base = bytes.byteOffset;
    let at = base + start;
    const stop = base + end;
    for (; at < stop && (at & 3) !== 0; at++) if (!isPlainAsciiByte(bytes[at - base]!)) return false;
    const words = this.words;
    let flagged = 0;
    for (let word = at >>> 2, wordStop = stop >>> 2; word < wordStop; word++) flagged |= words[word]! - 0x20202020;
    if ((flagged & 0x80808080) !== 0) return false;
    for (at = Math.max(at, stop & ~3); at < stop; at++) if (!isPlainAsciiByte(bytes[at - base]!)) return false;
    return true;
  }

  /** Closes the record begun last: writes its frame header (length and checksum). */
  endRecord(): void {
    const length = this.cursor - this.end - FRAME_HEADER_BYTES;
    if (length > MAX_RECORD_BYTES) throw tooLarge(this.recordId, length);
    writeFrameHeader(this.bytes, this.end, length);
    this.end = this.cursor;
    this.frameLengths.push(FRAME_HEADER_BYTES + length);
    this.frameTypes.push(this.recordType);
  }

  /** Drops everything staged after `mark`. */
  rollback(mark: StageMark): void {
    this.end = mark.end;
    this.frameLengths.length = mark.events;
    this.frameTypes.length = mark.events;
  }

  /** Moves the frames staged after `mark` to `target` (an append that overflowed this batch). */
  moveTo(target: StagedBatch, mark: StageMark): void {
    const bytes = this.end - mark.end;
    if (target.bytes.length - target.end < bytes) target.grow(target.end + bytes);
    this.bytes.copy(target.bytes, target.end, mark.end, this.end);
    target.end += bytes;
    for (let i = mark.events; i < this.frameLengths.length; i++) {
      target.frameLengths.push(this.frameLengths[i]!);
      target.frameTypes.push(this.frameTypes[i]!);
    }
    this.rollback(mark);
  }

  /**
   * Fills in the batch header; returns the bytes to write: the header, then every frame.
   * `pipelined`: the batch is written while the one before it is still syncing.
   */
  seal(pipelined: boolean): Buffer {
    writeBatchHeader(this.bytes, 0, { length: this.recordBytes, pipelined });
    return this.bytes.subarray(0, this.end);
  }

  resolve(): void {
    this.settle.resolve();
  }

  reject(error: Error): void {
    this.settle.reject(error);
  }

  private makeRoom(bytes: number): void {
    if (this.bytes.length - this.cursor < bytes) this.grow(this.cursor + bytes);
  }

  private grow(minimum: number): void {
    const bytes = Buffer.allocUnsafe(Math.max(minimum, this.bytes.length * 2));
    // A record being written lies between end and cursor.
    this.bytes.copy(bytes, 0, 0, Math.max(this.end, this.cursor));
    this.bytes = bytes;
  }
}

function isPlainAsciiByte(byte: number): boolean {
  return byte >= 0x20 && byte < 0x80;
}

function tooLarge(eventId: string, bytes: number): RecordTooLargeError {
  return new RecordTooLargeError(eventId, bytes, MAX_RECORD_BYTES);
}
