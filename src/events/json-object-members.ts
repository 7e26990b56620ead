import type { JsonValue } from '../signing/rfc8785.ts';

/**
 * Reading a few top-level members of a JSON object's text without parsing the rest: a ResultSigned
 * event of 11 MB holds its record between small members (the digest, the key id), and parsing it
 * whole to read them held the event loop for 85-190 ms.
 *
 * The text is read from both ends, member by member, as long as the values met are strings,
 * numbers, true, false or null; a member whose value is an object or an array ends the reading
 * from that end (its end cannot be found without scanning it). What lies between is never looked
 * at. A requested member in that middle, or anything unexpected, gives undefined: the caller then
 * parses the text whole.
 *
 * Exact when the text is JSON, as every event's data text is (written by JSON.stringify, or its
 * very bytes: EventData.dataJson): each value read is JSON.parse of its own text, and a member
 * read from the end is the last of its name, the one JSON.parse keeps. A member read from the
 * start could in principle be repeated in the unread middle; JSON.stringify never writes a name
 * twice.
 */
export function topLevelScalarMembers(text: Buffer, names: readonly string[]): Map<string, JsonValue> | undefined {
  try {
    return readMembers(text, names);
  } catch {
    return undefined; // not JSON where it was read: the whole parse says what is wrong
  }
}

function readMembers(text: Buffer, names: readonly string[]): Map<string, JsonValue> | undefined {
  const wanted = new Set(names);
  const spans = new Map<string, Span>();
  const first = skipSpaceForwards(text, 0);
  const last = skipSpaceBackwards(text, text.length - 1);
  if (text[first] !== OPEN_BRACE || text[last] !== CLOSE_BRACE || last <= first) return undefined;
  const fromEnd = readMembersBackwards(text, first, last, wanted, spans);
  if (fromEnd === undefined) return undefined;
  if (fromEnd.stoppedAt !== undefined && spans.size < wanted.size && readMembersForwards(text, first, fromEnd.stoppedAt, wanted, spans) === undefined) return undefined;
  if (spans.size < wanted.size) return undefined;
  const values = new Map<string, JsonValue>();
  for (const [name, span] of spans) values.set(name, parseSpan(text, span));
  return values;
}

/**
 * Where the object or array whose closing `}` or `]` is at `last` starts, searching no further
 * back than `floor`: the text is read backwards, strings stepped over whole, so brackets inside
 * them do not count. For JSON text; undefined when it does not balance.
 */
export function containerStartBefore(text: Buffer, last: number, floor: number): number | undefined {
  let depth = 0;
  for (let at = last; at >= floor; at--) {
    const byte = text[at];
    if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth++;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (--depth === 0) return at;
    } else if (byte === QUOTE) {
      const opening = openingQuoteBefore(text, at - 1, floor);
      if (opening === undefined) return undefined;
      at = opening;
    }
    if (depth === 0) return undefined;
  }
  return undefined;
}

interface Span {
  from: number;
  /** Exclusive. */
  to: number;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * Members from the object's end (`last`, its `}`) towards its start, into `spans` when wanted and
 * not met already. Returns where it stopped: undefined when it reached the `{` (the object is
 * read whole), else the end of the value it would not read (an object or an array).
 */
function readMembersBackwards(text: Buffer, first: number, last: number, wanted: ReadonlySet<string>, spans: Map<string, Span>): { stoppedAt: number | undefined } | undefined {
  let at = skipSpaceBackwards(text, last - 1);
  if (at === first) return { stoppedAt: undefined };
  for (;;) {
    const value = scalarEndingAt(text, at, first);
    if (value === 'container') return { stoppedAt: at + 1 };
    if (value === undefined) return undefined;
    at = skipSpaceBackwards(text, value.from - 1);
    if (text[at] !== COLON) return undefined;
    at = skipSpaceBackwards(text, at - 1);
    if (text[at] !== QUOTE) return undefined;
    const keyStart = openingQuoteBefore(text, at - 1, first);
    if (keyStart === undefined) return undefined;
    const name = memberName(text, { from: keyStart, to: at + 1 });
    if (name === undefined) return undefined;
    if (wanted.has(name) && !spans.has(name)) spans.set(name, value);
    at = skipSpaceBackwards(text, keyStart - 1);
    if (at === first) return { stoppedAt: undefined };
    if (text[at] !== COMMA) return undefined;
    at = skipSpaceBackwards(text, at - 1);
  }
}

/** Members from the object's start towards `stop` (exclusive), into `spans` when wanted and not met already. */
function readMembersForwards(text: Buffer, first: number, stop: number, wanted: ReadonlySet<string>, spans: Map<string, Span>): true | undefined {
  let at = first + 1;
  for (;;) {
    at = skipSpaceForwards(text, at);
    if (text[at] !== QUOTE) return undefined;
    const keyEnd = closingQuoteAfter(text, at + 1, stop);
    if (keyEnd === undefined) return undefined;
    const name = memberName(text, { from: at, to: keyEnd + 1 });
    if (name === undefined) return undefined;
    at = skipSpaceForwards(text, keyEnd + 1);
    if (text[at] !== COLON) return undefined;
    at = skipSpaceForwards(text, at + 1);
    const value = scalarStartingAt(text, at, stop);
    if (value === 'container') return true;
    if (value === undefined) return undefined;
    if (wanted.has(name) && !spans.has(name)) spans.set(name, value);
    at = skipSpaceForwards(text, value.to);
    if (text[at] !== COMMA || at >= stop) return undefined;
    at++;
  }
}

/** The scalar value whose last byte is at `at`, or 'container' when a `}` or `]` ends there. */
function scalarEndingAt(text: Buffer, at: number, floor: number): Span | 'container' | undefined {
  const byte = text[at];
  if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) return 'container';
  if (byte === QUOTE) {
    const from = openingQuoteBefore(text, at - 1, floor);
    return from === undefined ? undefined : { from, to: at + 1 };
  }
  let from = at;
  while (from > floor && isScalarByte(text[from - 1]!)) from--;
  return from <= at && isScalarByte(byte ?? 0) ? { from, to: at + 1 } : undefined;
}

/** The scalar value starting at `at`, or 'container' when a `{` or `[` starts there. */
function scalarStartingAt(text: Buffer, at: number, stop: number): Span | 'container' | undefined {
  const byte = text[at];
  if (byte === OPEN_BRACE || byte === OPEN_BRACKET) return 'container';
  if (byte === QUOTE) {
    const end = closingQuoteAfter(text, at + 1, stop);
    return end === undefined ? undefined : { from: at, to: end + 1 };
  }
  let to = at;
  while (to < stop && isScalarByte(text[to]!)) to++;
  return to > at ? { from: at, to } : undefined;
}

/** The bytes of numbers and of true, false and null; JSON.parse of the span checks the rest. */
function isScalarByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x45;
}

/** The string's opening quote, searching back from `from`: the first quote not escaped by an odd run of backslashes. */
function openingQuoteBefore(text: Buffer, from: number, floor: number): number | undefined {
  for (let at = from; at > floor; ) {
    const quote = text.lastIndexOf(QUOTE, at);
    if (quote <= floor) return undefined;
    if (!isEscaped(text, quote)) return quote;
    at = quote - 1;
  }
  return undefined;
}

/** The string's closing quote, searching on from `from`. */
function closingQuoteAfter(text: Buffer, from: number, stop: number): number | undefined {
  for (let at = from; at < stop; ) {
    const quote = text.indexOf(QUOTE, at);
    if (quote < 0 || quote >= stop) return undefined;
    if (!isEscaped(text, quote)) return quote;
    at = quote + 1;
  }
  return undefined;
}

function isEscaped(text: Buffer, quote: number): boolean {
  let backslashes = 0;
  for (let at = quote - 1; at >= 0 && text[at] === BACKSLASH; at--) backslashes++;
  return backslashes % 2 === 1;
}

function memberName(text: Buffer, span: Span): string | undefined {
  const name = parseSpan(text, span);
  return typeof name === 'string' ? name : undefined;
}

function parseSpan(text: Buffer, span: Span): JsonValue {
  const value: JsonValue = JSON.parse(text.toString('utf8', span.from, span.to));
  return value;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpaceForwards(text: Buffer, at: number): number {
  while (isSpace(text[at])) at++;
  return at;
}

function skipSpaceBackwards(text: Buffer, at: number): number {
  while (at > 0 && isSpace(text[at])) at--;
  return at;
}
