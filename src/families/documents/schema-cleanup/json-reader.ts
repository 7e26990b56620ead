import { readNumber, type KeptNumberKind } from './numbers.ts';

/**
 * A number of the caller's JSON that a double cannot carry as written, kept as its literal. A
 * value of its own class, so no string the caller sends can be taken for one (an in-band marked
 * string could: "\u0000big-integer:5" came out as "5").
 */
export class KeptNumber {
  constructor(
    readonly literal: string,
    readonly kind: KeptNumberKind,
    readonly reason: string,
  ) {}
}

export type ReadValue = null | boolean | number | string | KeptNumber | ReadValue[] | { [name: string]: ReadValue };
export type ReadObject = { [name: string]: ReadValue };

/**
 * Reads JSON text that JSON.parse has accepted, as JSON.parse would (the last of two members of
 * one name wins, in the place of the first), except that a number a double cannot carry as
 * written is a KeptNumber. Node 20's JSON.parse gives a reviver no number's source text, so the
 * literal is read here. Recursive: the operation refuses JSON nested deeper than 32 levels
 * before its quote.
 */
export function readJson(text: string): ReadValue {
  return new Reader(text).value();
}

class Reader {
  private i = 0;

  constructor(private readonly text: string) {}

  private skipWhitespace(): void {
    const t = this.text;
    let c = t.charCodeAt(this.i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = t.charCodeAt(++this.i);
  }

  value(): ReadValue {
    this.skipWhitespace();
    const c = this.text.charCodeAt(this.i);
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    const word = this.text.startsWith('true', this.i) ? true : this.text.startsWith('false', this.i) ? false : null;
    this.i += word === null ? 4 : word ? 4 : 5;
    return word;
  }

  private object(): ReadObject {
    this.i++;
    const entries: Array<[string, ReadValue]> = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return {};
    }
    for (;;) {
      this.skipWhitespace();
      const name = this.string();
      this.skipWhitespace();
      this.i++; // ':'
      entries.push([name, this.value()]);
      this.skipWhitespace();
      if (this.text.charCodeAt(this.i++) === 0x7d) break; // '}' else ','
    }
    // As data properties: a member named __proto__ stays a member, as JSON.parse keeps it.
    return Object.fromEntries(entries);
  }

  private array(): ReadValue[] {
    this.i++;
    const items: ReadValue[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.skipWhitespace();
      if (this.text.charCodeAt(this.i++) === 0x5d) return items; // ']' else ','
    }
  }

  private string(): string {
    const t = this.text;
    const start = this.i;
    let i = start + 1;
    let escaped = false;
    for (let c = t.charCodeAt(i); c !== 0x22; c = t.charCodeAt(i)) {
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else i++;
    }
    this.i = i + 1;
    return escaped ? (JSON.parse(t.slice(start, i + 1)) as string) : t.slice(start + 1, i);
  }

  private number(): number | KeptNumber {
    const t = this.text;
    const start = this.i;
    let c = t.charCodeAt(this.i);
    while ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) c = t.charCodeAt(++this.i);
    const literal = t.slice(start, this.i);
    const read = readNumber(literal);
    return 'value' in read ? read.value : new KeptNumber(literal, read.kept, read.reason);
  }
}
