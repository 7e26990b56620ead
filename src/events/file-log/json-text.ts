/**
 * JSON text of event data, exactly as JSON.stringify writes it, but faster for the values events
 * are made of. Every append serialises its events, and on Node 20 JSON.stringify scans strings
 * one character at a time and costs about 0.15 µs per call on top: for a 1 KiB event that was
 * the largest single item of an append's CPU time. Here a string without anything to escape is
 * recognised by one regular expression test (native and much faster) and quoted as it is.
 *
 * Only plain values take the fast path: strings, finite numbers, booleans, null, and arrays and
 * objects with the standard prototypes whose members are such values. Anything else (undefined,
 * functions, non-finite numbers, toJSON, class instances, a cycle) makes the whole value go
 * through JSON.stringify, so the output, and every error, is always JSON.stringify's own.
 */
import { hasNothingToEscape, quoteJsonString } from '../../signing/rfc8785.ts';

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
 * How strings are quoted:
 * - `exact`: escaped as JSON.stringify escapes them;
 * - `unchecked`: written between quotes as they are unless they hold `"` or `\\` (found by
 *   indexOf, native and much faster than a regular expression on this path), without looking for
 *   control characters, surrogates or non-ASCII text. Only for an output that checks afterwards
 *   that everything written is printable ASCII (see writeRecordPayload): then nothing needed
 *   escaping, and the text is exactly what the `exact` way gives.
 */
export type Quoting = 'exact' | 'unchecked';

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
export function writeJson(out: TextOut, value: unknown, prefix = '', suffix = '', quoting: Quoting = 'exact'): boolean {
  const start = out.cursor;
  try {
    const emitter = new PlainEmitter(out, prefix, quoting === 'unchecked');
    emitter.value(value);
    emitter.finish(suffix);
    return true;
  } catch (err) {
    // A stack overflow on very deep data also ends here: JSON.stringify then decides.
    if (err !== NOT_PLAIN && !(err instanceof RangeError)) throw err;
    out.cursor = start;
    const text = JSON.stringify(value) as string | undefined;
    if (text === undefined) return false;
    out.write(prefix + text + suffix);
    return true;
  }
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

/** Emits plain values; short text is gathered and written in one piece. */
class PlainEmitter {
  constructor(
    private readonly out: TextOut,
    /** Text gathered and not yet written. */
    private pending: string,
    /** Strings without `"` or `\\` go out as they are (see Quoting). */
    private readonly unchecked: boolean,
  ) {}

  flush(): void {
    if (this.pending.length > 0) this.out.write(this.pending);
    this.pending = '';
  }

  finish(suffix: string): void {
    this.pending += suffix;
    this.flush();
  }

  value(value: unknown): void {
    switch (typeof value) {
      case 'string': {
        const raw = this.unchecked && !hasQuoteOrBackslash(value);
        if (value.length < LONG_STRING) {
          this.pending += raw ? `"${value}"` : quoteJsonString(value);
          return;
        }
        this.pending += '"';
        this.flush();
        // The usual long string (ASCII, nothing to escape) is checked by the output as it is
        // written, or afterwards with the rest of the record; the others are written as before.
        if (raw) {
          this.out.write(value);
          this.pending = '"';
        } else if (this.out.writeUnescaped(value)) {
          this.pending = '"';
        } else if (hasNothingToEscape(value)) {
          this.out.write(value);
          this.pending = '"';
        } else {
          this.pending = JSON.stringify(value).slice(1);
        }
        return;
      }
      case 'number':
        if (!Number.isFinite(value)) throw NOT_PLAIN;
        // Number::toString, as JSON.stringify writes numbers (and -0 as "0").
        this.pending += String(value);
        return;
      case 'boolean':
        this.pending += value ? 'true' : 'false';
        return;
      case 'object': {
        if (value === null) {
          this.pending += 'null';
          return;
        }
        const proto: unknown = Object.getPrototypeOf(value);
        if (Array.isArray(value) && proto === Array.prototype) return this.array(value as unknown[]);
        if ((proto === Object.prototype || proto === null) && !('toJSON' in value)) return this.object(value as Record<string, unknown>);
        throw NOT_PLAIN;
      }
      default:
        throw NOT_PLAIN;
    }
  }

  private array(values: unknown[]): void {
    this.pending += '[';
    for (let i = 0; i < values.length; i++) {
      if (i > 0) this.pending += ',';
      this.value(values[i]);
    }
    this.pending += ']';
  }

  private object(object: Record<string, unknown>): void {
    // Object.keys lists exactly the properties JSON.stringify writes, in the same order.
    const keys = Object.keys(object);
    this.pending += '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const quoted = this.unchecked && !hasQuoteOrBackslash(key) ? `"${key}"` : quoteJsonString(key);
      this.pending += (i === 0 ? '' : ',') + quoted + ':';
      this.value(object[key]);
    }
    this.pending += '}';
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
