/**
 * JSON numbers that a double cannot hold: integers beyond 2^53 - 1 lose digits in JSON.parse, and
 * numbers beyond a double's range (1e400) become Infinity. Before parsing, such literals, however
 * long, are rewritten as marked strings (the scan skips the contents of strings), so the value is
 * kept as written and the change can be listed where it lands.
 */
export const BIG_INTEGER_MARK = '\u0000big-integer:';

const SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

export function isBeyondSafeInteger(digits: string): boolean {
  const unsigned = digits.replace(/^[-+]/, '').replace(/^0+(?=\d)/, '');
  return unsigned.length > SAFE_DIGITS.length || (unsigned.length === SAFE_DIGITS.length && unsigned > SAFE_DIGITS);
}

/** A JSON number literal at a given index, however long (sticky: no copy of the rest of the text). */
const NUMBER_LITERAL = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * An integer beyond 2^53 - 1, or any number that overflows a double (1e400): JSON.parse would
 * change the one and make Infinity of the other, which no signed record can carry.
 */
function doubleCannotHold(literal: string): boolean {
  return /^-?\d+$/.test(literal) ? isBeyondSafeInteger(literal) : !Number.isFinite(Number(literal));
}

export function markBigIntegers(json: string): string {
  let out = '';
  let i = 0;
  while (i < json.length) {
    const ch = json[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      out += json.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    NUMBER_LITERAL.lastIndex = i;
    const number = ch === '-' || (ch >= '0' && ch <= '9') ? NUMBER_LITERAL.exec(json) : null;
    if (number) {
      const literal = number[0];
      // The mark's NUL is written escaped: JSON forbids a raw control character in a string.
      out += doubleCannotHold(literal) ? `"\\u0000big-integer:${literal}"` : literal;
      i += literal.length;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}
