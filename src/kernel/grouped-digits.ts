/**
 * An integer with its digits in groups of three ("40,000,000"), as toLocaleString('en') writes
 * it, for the catalogue's descriptions: those are made at start, and the first locale-aware call
 * loads ICU's locale data (about 12 ms of a start that takes well under a second).
 */
export function groupedDigits(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`groupedDigits takes a safe integer, not ${n}`);
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${digits}` : digits;
}
