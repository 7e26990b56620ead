/**
 * Exact decimal arithmetic over bigint: a value is `units / 10^scale`. Sums, differences and
 * products are exact; a quotient is rounded once, half to even, to QUOTIENT_DECIMALS places, and
 * that rule is part of the ruleset. No floating point touches a figure.
 */
export interface Decimal {
  units: bigint;
  scale: number;
}

export const QUOTIENT_DECIMALS = 6;
export const DECIMAL_PATTERN = /^-?(0|[1-9]\d{0,17})(\.\d{1,6})?$/;

export function parseDecimal(text: string): Decimal {
  if (!DECIMAL_PATTERN.test(text)) throw new RangeError(`not a decimal amount: ${text}`);
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const units = BigInt(`${whole}${fraction}`);
  return { units: negative ? -units : units, scale: fraction.length };
}

const pow10 = (n: number) => 10n ** BigInt(n);
const align = (a: Decimal, b: Decimal): [bigint, bigint, number] => {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * pow10(scale - a.scale), b.units * pow10(scale - b.scale), scale];
};

export const add = (a: Decimal, b: Decimal): Decimal => {
  const [x, y, scale] = align(a, b);
  return { units: x + y, scale };
};
export const subtract = (a: Decimal, b: Decimal): Decimal => add(a, { units: -b.units, scale: b.scale });
export const compare = (a: Decimal, b: Decimal): number => {
  const [x, y] = align(a, b);
  return x === y ? 0 : x < y ? -1 : 1;
};
export const isZero = (a: Decimal) => a.units === 0n;
export const sign = (a: Decimal) => (a.units === 0n ? 0 : a.units < 0n ? -1 : 1);
export const abs = (a: Decimal): Decimal => ({ units: a.units < 0n ? -a.units : a.units, scale: a.scale });

/** a / b rounded half to even to `decimals` places; undefined when b is zero. */
export function divide(a: Decimal, b: Decimal, decimals = QUOTIENT_DECIMALS): Decimal | undefined {
  if (b.units === 0n) return undefined;
  // a/b = (a.units * 10^(b.scale + decimals)) / (b.units * 10^a.scale) in units of 10^-decimals.
  let numerator = a.units * pow10(b.scale + decimals);
  let denominator = b.units * pow10(a.scale);
  if (denominator < 0n) {
    numerator = -numerator;
    denominator = -denominator;
  }
  let quotient = numerator / denominator;
  const remainder = numerator - quotient * denominator;
  const twice = 2n * (remainder < 0n ? -remainder : remainder);
  if (twice > denominator || (twice === denominator && quotient % 2n !== 0n)) quotient += remainder < 0n ? -1n : 1n;
  return { units: quotient, scale: decimals };
}

/** The shortest exact decimal string: "0.25", "-3", "1200.5". */
export function formatDecimal(a: Decimal): string {
  const negative = a.units < 0n;
  const digits = (negative ? -a.units : a.units).toString().padStart(a.scale + 1, '0');
  const whole = digits.slice(0, digits.length - a.scale);
  const fraction = digits.slice(digits.length - a.scale).replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : whole;
  return negative && text !== '0' ? `-${text}` : text;
}

export const multiply = (a: Decimal, b: Decimal): Decimal => ({ units: a.units * b.units, scale: a.scale + b.scale });
