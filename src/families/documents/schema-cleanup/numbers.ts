/**
 * When a number the caller wrote can be carried as a JSON number. The output is signed as
 * RFC 8785 JSON, which writes a number as the shortest decimal that reads back as the same
 * double; a number is kept as a JSON number only when that decimal is the caller's own, so the
 * signed output never says a different number than the input did.
 */

const SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

export function isBeyondSafeInteger(digits: string): boolean {
  const unsigned = digits.replace(/^[-+]/, '').replace(/^0+(?=\d)/, '');
  return unsigned.length > SAFE_DIGITS.length || (unsigned.length === SAFE_DIGITS.length && unsigned > SAFE_DIGITS);
}

/** The change that lists a number kept as written, by why a double could not carry it. */
export type KeptNumberKind = 'integer-beyond-2^53-kept-as-string' | 'number-beyond-a-double-kept-as-string' | 'decimal-kept-as-string';

export type ReadNumber = { value: number } | { kept: KeptNumberKind; reason: string };

const LITERAL = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/;

/**
 * The exact value of a decimal as sign, significant digits and exponent, so that 1.50, 15e-1 and
 * 1.5 compare equal. Zeros are trimmed by loops: a regular expression such as /0+$/ backtracks
 * quadratically over the 400,000 zeros a literal may hold.
 */
function decimalValue(text: string): string {
  const parts = LITERAL.exec(text);
  if (!parts) return text;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = parts;
  const digits = whole + fraction;
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++;
  let end = digits.length;
  while (end > first && digits.charCodeAt(end - 1) === 0x30) end--;
  if (first === end) return '0';
  const scale = BigInt(exponent) - BigInt(fraction.length) + BigInt(digits.length - end);
  return `${sign === '-' ? '-' : ''}${digits.slice(first, end)}e${scale}`;
}

/**
 * A JSON number literal (or a CSV cell of digits) read as a number when a double carries it as
 * written, else the change that keeps it as written. Integers beyond 2^53 - 1 are kept even when
 * their double is exact (2^53 itself): RFC 7493 section 2.2 names that range as the one every
 * reader holds exactly.
 */
export function readNumber(literal: string): ReadNumber {
  if (/^[-+]?\d+$/.test(literal) && isBeyondSafeInteger(literal)) {
    return { kept: 'integer-beyond-2^53-kept-as-string', reason: 'an integer beyond 2^53 - 1, which not every reader of JSON holds exactly (RFC 7493)' };
  }
  const value = Number(literal);
  if (!Number.isFinite(value)) return { kept: 'number-beyond-a-double-kept-as-string', reason: 'beyond the range of an IEEE double' };
  // -0 and 0 are one decimal; RFC 8785 writes both as 0.
  if (decimalValue(literal) !== decimalValue(String(value))) {
    return { kept: 'decimal-kept-as-string', reason: `not exactly representable as an IEEE double (read as one: ${String(value)})` };
  }
  return { value };
}
