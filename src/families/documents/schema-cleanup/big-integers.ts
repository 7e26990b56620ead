/**
 * JSON numbers that a double cannot hold: integers beyond 2^53 - 1 lose digits in JSON.parse.
 * Before parsing, such literals are rewritten as marked strings (the scan skips the contents of
 * strings), so the value is kept digit for digit and the change can be listed where it lands.
 */
export const BIG_INTEGER_MARK = '\u0000big-integer:';

const SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

export function isBeyondSafeInteger(digits: string): boolean {
  const unsigned = digits.replace(/^[-+]/, '').replace(/^0+(?=\d)/, '');
  return unsigned.length > SAFE_DIGITS.length || (unsigned.length === SAFE_DIGITS.length && unsigned > SAFE_DIGITS);
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
    const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(json.slice(i, i + 400));
    if (number && (ch === '-' || (ch >= '0' && ch <= '9'))) {
      const literal = number[0];
      // The mark's NUL is written escaped: JSON forbids a raw control character in a string.
      out += /^-?\d+$/.test(literal) && isBeyondSafeInteger(literal) ? `"\\u0000big-integer:${literal}"` : literal;
      i += literal.length;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}
