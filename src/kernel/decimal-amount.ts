/**
 * Budget amounts are decimal strings with at most 6 decimals, held as integer micro-units
 * (bigint) so that sums and comparisons are exact: 0.1 + 0.2 is 0.3 here.
 */
export const AMOUNT_PATTERN = /^(0|[1-9]\d{0,14})(\.\d{1,6})?$/;

/** "1.5" -> 1_500_000n; undefined when the text is not an amount. */
export function parseAmount(text: string): bigint | undefined {
  const m = AMOUNT_PATTERN.exec(text);
  if (!m) return undefined;
  return BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '.').slice(1).padEnd(6, '0'));
}

/** 1_500_000n -> "1.5": the shortest decimal form, the one every record carries. */
export function formatAmount(micros: bigint): string {
  const whole = micros / 1_000_000n;
  const fraction = (micros % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}
