/**
 * I-JSON (RFC 7493), the profile RFC 8785 builds on: JSON text whose every value a signature can
 * carry faithfully. A text is refused, naming the member, when it has
 *   - a number that is not exactly representable: an integer beyond +-(2^53 - 1), or a number
 *     that overflows or that underflows to zero, such as 1e-400 (section 2.2);
 *   - a string with an unpaired surrogate escape, \uD800 alone (section 2.1);
 *   - an object with two members of the same name (section 2.3).
 * and, beyond I-JSON, a member named `__proto__`. JSON.parse makes it an own property, but
 * JavaScript code that copies an object member by member (zod's JSON and record schemas among
 * it) assigns it, which sets the copy's prototype instead: the member vanished from stored events
 * as they were read back, so a memory value holding one was answered without it, its replay
 * failed its own signature, and the audit failed for good. Refused as Fastify refuses it by
 * default. `constructor` and `prototype` are ordinary names.
 *
 * One linear pass over the text that builds no value (duplicates are compared by the member name
 * as written, decoded only when it holds an escape), then the native JSON.parse.
 */

export type IJsonResult = { ok: true; value: unknown } | { ok: false; path: string; reason: string; malformed?: true };

/** JSON that is well formed but not I-JSON, where a caller sent it: answered 422 naming the member. */
export class IJsonRefused extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'IJsonRefused';
  }
}

const MAX_EXACT_INTEGER = Number.MAX_SAFE_INTEGER;
/**
 * Deeper than this the scanner stops looking (without recursing further, so no nesting can
 * overflow its stack): every schema of caller JSON refuses nesting far shallower (MAX_JSON_DEPTH).
 */
const MAX_SCAN_DEPTH = 128;

/**
 * `maxDepth`: where the text itself is the record (a verify parameter), nesting deeper than this
 * is refused at the root, in the same pass; elsewhere the caller's schema bounds it.
 */
export function parseIJson(text: string, maxDepth?: number): IJsonResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, path: '(body)', reason: 'malformed JSON', malformed: true };
  }
  // Only a text JSON.parse accepts is scanned, so the scanner may assume well-formed JSON.
  const problem = new IJsonScanner(text, maxDepth).scan();
  return problem ?? { ok: true, value };
}

class IJsonScanner {
  private i = 0;
  /** The member names and indices leading to the current value, for the message. */
  private readonly path: Array<string | number> = [];

  constructor(
    private readonly text: string,
    private readonly maxDepth?: number,
  ) {}

  scan(): IJsonResult | undefined {
    return this.value();
  }

  private fail(reason: string): IJsonResult {
    const path = this.path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[') || '(root)';
    return { ok: false, path, reason };
  }

  private skipWhitespace(): void {
    const t = this.text;
    let i = this.i;
    for (let c = t.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = t.charCodeAt(++i));
    this.i = i;
  }

  private value(): IJsonResult | undefined {
    this.skipWhitespace();
    const c = this.text.charCodeAt(this.i);
    if ((c === 0x7b || c === 0x5b) && this.maxDepth !== undefined && this.path.length >= this.maxDepth) {
      return { ok: false, path: '(root)', reason: `must not nest deeper than ${this.maxDepth} levels` };
    }
    if ((c === 0x7b || c === 0x5b) && this.path.length >= MAX_SCAN_DEPTH) return this.skipNested();
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x22) return this.string().problem;
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    // true, false, null
    this.i += c === 0x66 ? 5 : 4;
    return undefined;
  }

  private object(): IJsonResult | undefined {
    this.i++;
    const names = new Set<string>();
    this.skipWhitespace();
    if (this.text.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return undefined;
    }
    for (;;) {
      this.skipWhitespace();
      const { name, problem } = this.string();
      if (problem) return problem;
      this.path.push(name);
      if (name === '__proto__') return this.fail('the member name "__proto__" is refused: JavaScript libraries that copy objects drop it or take it as a prototype, so it could not be stored and signed faithfully');
      if (names.has(name)) return this.fail(`duplicate member name ${JSON.stringify(name)}: I-JSON (RFC 7493) allows each name once in an object`);
      names.add(name);
      this.skipWhitespace();
      this.i++; // ':'
      const inner = this.value();
      if (inner) return inner;
      this.path.pop();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.i++) === 0x7d) return undefined; // '}' else ','
    }
  }

  private array(): IJsonResult | undefined {
    this.i++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return undefined;
    }
    for (let index = 0; ; index++) {
      this.path.push(index);
      const inner = this.value();
      if (inner) return inner;
      this.path.pop();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.i++) === 0x5d) return undefined;
    }
  }

  /** Steps over an object or array without looking inside, iteratively. */
  private skipNested(): undefined {
    const t = this.text;
    let depth = 0;
    let i = this.i;
    do {
      const c = t.charCodeAt(i);
      if (c === 0x22) {
        for (i++; t.charCodeAt(i) !== 0x22; i++) if (t.charCodeAt(i) === 0x5c) i++;
      } else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) depth--;
      i++;
    } while (depth > 0);
    this.i = i;
    return undefined;
  }

  /** Scans a string token; `name` is its decoded text when used as a member name. */
  private string(): { name: string; problem?: IJsonResult } {
    const t = this.text;
    const start = this.i;
    let i = start + 1;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        if (t.charCodeAt(i + 1) === 0x75) {
          const unit = parseInt(t.slice(i + 2, i + 6), 16);
          if (unit >= 0xd800 && unit <= 0xdfff) {
            const paired = unit <= 0xdbff && t.charCodeAt(i + 6) === 0x5c && t.charCodeAt(i + 7) === 0x75 && isLowSurrogate(parseInt(t.slice(i + 8, i + 12), 16));
            if (!paired) {
              this.i = i;
              return { name: '', problem: this.fail(`lone surrogate \\u${t.slice(i + 2, i + 6)} in a string: I-JSON (RFC 7493) requires well-formed Unicode, and RFC 8785 cannot sign it`) };
            }
            i += 12;
            continue;
          }
          i += 6;
          continue;
        }
        i += 2;
        continue;
      }
      i++;
    }
    this.i = i + 1;
    // The raw text between the quotes names the member unless it holds an escape ("a" and "\u0061" are one name).
    return { name: escaped ? (JSON.parse(t.slice(start, i + 1)) as string) : t.slice(start + 1, i) };
  }

  private number(): IJsonResult | undefined {
    const t = this.text;
    const start = this.i;
    let i = start;
    let integer = true;
    for (;;) {
      const c = t.charCodeAt(i);
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b) i++;
      else if (c === 0x2e || c === 0x65 || c === 0x45) {
        integer = false;
        i++;
      } else break;
    }
    this.i = i;
    const token = t.slice(start, i);
    // Short integer tokens are exact: no need to look closer (the common case).
    if (integer && token.length <= 15) return undefined;
    const value = Number(token);
    if (!Number.isFinite(value)) return this.fail(`number ${token} overflows: send it as a string`);
    // A zero written with a non-zero digit before its exponent is a number too small for a double.
    if (value === 0 && /[1-9]/.test(token.split(/[eE]/)[0]!)) return this.fail(`number ${token} underflows to 0: send it as a string`);
    if (Number.isInteger(value) && Math.abs(value) > MAX_EXACT_INTEGER)
      return this.fail(`number ${token} is beyond +-(2^53 - 1) and cannot be carried exactly: send it as a string`);
    return undefined;
  }
}

const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;
