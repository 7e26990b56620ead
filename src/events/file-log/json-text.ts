/**
 * JSON text of event data, exactly as JSON.stringify writes it, but faster for the values events
 * are made of. Every append serialises its events, and on Node 20 JSON.stringify scans strings
 * one character at a time: for a long string that was the largest single item of an append's
 * CPU time. Here a string without anything to escape is recognised by native searches and
 * written as it is. Two ways: as text (jsonText, writeJson), and straight into a record's bytes
 * (writeUncheckedJson), which makes no garbage.
 *
 * Only plain values take the fast path: strings, finite numbers, booleans, null, and arrays and
 * objects with the standard prototypes whose members are such values. Anything else (undefined,
 * functions, non-finite numbers, toJSON, class instances, a cycle) makes the whole value go
 * through JSON.stringify, so the output, and every error, is always JSON.stringify's own.
 */
import { hasNothingToEscape, isPlainContainer, quoteJsonString } from '../../signing/rfc8785.ts';

/** Thrown inside the fast path when a value is not plain: the caller starts over with JSON.stringify. */
const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

/**
 * Strings at least this long go to the output on their own instead of being concatenated into
 * the surrounding text: a long concatenation must be flattened (copied) before it can be
 * encoded, which cost more than the encoding itself.
 */
const LONG_STRING = 128;

/** Where JSON text goes. `cursor` can be set back, to drop what was written since. */
export interface TextOut {
  cursor: number;
  write(text: string): void;
  /**
   * Writes `text` as it is if it is ASCII that a JSON string holds unescaped (nothing below
   * U+0020, no `"`, no `\\`); otherwise writes nothing and returns false.
   */
  writeUnescaped(text: string): boolean;
}

/**
 * A TextOut that copies short ASCII text and integers into its bytes itself, with no string made
 * and no call into native code (the batch a record is written into: StagedBatch).
 */
export interface ByteTextOut extends TextOut {
  /** Writes `text` if it is short ASCII; otherwise writes nothing and returns false. */
  writeAscii(text: string): boolean;
  /** Writes the JSON of an integer. */
  writeInteger(n: number): void;
}

/** JSON.stringify(value), or undefined where JSON.stringify gives undefined. Throws what it throws. */
export function jsonText(value: unknown): string | undefined {
  const out = new StringOut();
  return writeJson(out, value) ? out.text : undefined;
}

/**
 * Writes `prefix`, JSON.stringify(value), then `suffix` to `out`; returns false, having written
 * nothing, where JSON.stringify gives undefined. Throws what JSON.stringify throws. The prefix
 * and suffix go out with the value's first and last pieces: every write to a buffer is a call
 * into native code, and a record is written in as few of them as possible.
 */
export function writeJson(out: TextOut, value: unknown, prefix = '', suffix = ''): boolean {
  const start = out.cursor;
  try {
    const emitter = new PlainEmitter(out, prefix);
    emitter.value(value);
    emitter.finish(suffix);
    return true;
  } catch (err) {
    return writeStringified(out, start, err, value, prefix, suffix);
  }
}

/**
 * Writes JSON.stringify(value), then `suffix`, piece by piece into `out`'s bytes: no text is
 * built, so a record's data makes no garbage (the text emitter's concatenations made about
 * 11 KB for a paid call's three events, JSON.stringify about 4). Strings go out unchecked: as
 * they are unless they hold `"` or `\` (found by indexOf, native), without looking for control
 * characters, surrogates or non-ASCII text. Only for an output that checks afterwards that
 * everything written is printable ASCII (see writeRecordPayload): then nothing needed escaping,
 * and the bytes are exactly JSON.stringify's. Returns false, having written nothing, where
 * JSON.stringify gives undefined; throws what it throws.
 */
export function writeUncheckedJson(out: ByteTextOut, value: unknown, suffix: string): boolean {
  const start = out.cursor;
  try {
    new ByteEmitter(out).value(value);
    if (!out.writeAscii(suffix)) out.write(suffix);
    return true;
  } catch (err) {
    return writeStringified(out, start, err, value, '', suffix);
  }
}

/** Where a fast path met a value that is not plain (or data too deep for it): JSON.stringify decides, from `start`. */
function writeStringified(out: TextOut, start: number, err: unknown, value: unknown, prefix: string, suffix: string): boolean {
  // A stack overflow on very deep data also ends here.
  if (err !== NOT_PLAIN && !(err instanceof RangeError)) throw err;
  out.cursor = start;
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) return false;
  out.write(prefix + text + suffix);
  return true;
}

/** Whether JSON.stringify(value) is `{}`: the metadata of most events, worth no serialiser. */
export function isEmptyPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if ('toJSON' in value) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/**
 * Walks a plain value as JSON.stringify does (Object.keys lists exactly the properties it writes,
 * in its order) and throws NOT_PLAIN at anything else; each emitter says where the pieces go.
 */
abstract class PlainWalker {
  /** ASCII that needs no escaping: brackets, commas, colons, literals. */
  protected abstract ascii(text: string): void;
  protected abstract string(text: string): void;
  /** A finite number, written as Number::toString (and -0 as "0"), as JSON.stringify writes it. */
  protected abstract number(n: number): void;

  value(value: unknown): void {
    switch (typeof value) {
      case 'string':
        return this.string(value);
      case 'number':
        if (!Number.isFinite(value)) throw NOT_PLAIN;
        return this.number(value);
      case 'boolean':
        return this.ascii(value ? 'true' : 'false');
      case 'object':
        if (value === null) return this.ascii('null');
        if (!isPlainContainer(value)) throw NOT_PLAIN;
        return Array.isArray(value) ? this.array(value) : this.object(value as Record<string, unknown>);
      default:
        throw NOT_PLAIN;
    }
  }

  private array(values: unknown[]): void {
    this.ascii('[');
    for (let i = 0; i < values.length; i++) {
      if (i > 0) this.ascii(',');
      this.value(values[i]);
    }
    this.ascii(']');
  }

  private object(object: Record<string, unknown>): void {
    const keys = Object.keys(object);
    this.ascii('{');
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (i > 0) this.ascii(',');
      this.string(key);
      this.ascii(':');
      this.value(object[key]);
    }
    this.ascii('}');
  }
}

/** Emits plain values as text; short text is gathered and written in one piece. */
class PlainEmitter extends PlainWalker {
  constructor(
    private readonly out: TextOut,
    /** Text gathered and not yet written. */
    private pending: string,
  ) {
    super();
  }

  flush(): void {
    if (this.pending.length > 0) this.out.write(this.pending);
    this.pending = '';
  }

  finish(suffix: string): void {
    this.pending += suffix;
    this.flush();
  }

  protected ascii(text: string): void {
    this.pending += text;
  }

  protected number(n: number): void {
    this.pending += String(n);
  }

  protected string(value: string): void {
    if (value.length < LONG_STRING) {
      this.pending += quoteJsonString(value);
      return;
    }
    this.pending += '"';
    this.flush();
    // The usual long string (ASCII, nothing to escape) is checked by the output as it is
    // written; the others are written as before.
    if (this.out.writeUnescaped(value)) {
      this.pending = '"';
    } else if (hasNothingToEscape(value)) {
      this.out.write(value);
      this.pending = '"';
    } else {
      this.pending = JSON.stringify(value).slice(1);
    }
  }
}

/** Emits plain values straight into a ByteTextOut, strings unchecked (see writeUncheckedJson). */
class ByteEmitter extends PlainWalker {
  constructor(private readonly out: ByteTextOut) {
    super();
  }

  protected ascii(text: string): void {
    this.out.writeAscii(text);
  }

  protected number(n: number): void {
    if (Number.isInteger(n)) this.out.writeInteger(n);
    else this.out.write(String(n));
  }

  /**
   * A string between quotes, its characters as they are: copied in JS when short and ASCII, else
   * encoded natively (a control character or non-ASCII text then fails the record's check, and the
   * record is written again, exactly). Only `"` and `\\` are escaped here, as JSON.stringify does.
   */
  protected string(text: string): void {
    const out = this.out;
    if (hasQuoteOrBackslash(text)) {
      out.write(quoteJsonString(text));
      return;
    }
    out.writeAscii('"');
    if (!out.writeAscii(text)) out.write(text);
    out.writeAscii('"');
  }
}

/** Whether `s` holds `"` or `\\`: two native searches (memchr), whatever its length. */
export function hasQuoteOrBackslash(s: string): boolean {
  return s.indexOf('"') !== -1 || s.indexOf('\\') !== -1;
}

class StringOut implements TextOut {
  text = '';

  get cursor(): number {
    return this.text.length;
  }

  set cursor(at: number) {
    this.text = this.text.slice(0, at);
  }

  write(text: string): void {
    this.text += text;
  }

  writeUnescaped(text: string): boolean {
    if (!UNESCAPED_ASCII.test(text)) return false;
    this.text += text;
    return true;
  }
}

const UNESCAPED_ASCII = /^[\u0020\u0021\u0023-\u005b\u005d-\u007f]*$/;
