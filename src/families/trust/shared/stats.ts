/** z for a two-sided 95 % interval. */
export const WILSON_Z = 1.96;

/**
 * Lower bound of the Wilson score interval for `successes` out of `trials`: a success rate
 * that a small sample cannot inflate. 0 when there is no trial.
 */
export function wilsonLowerBound(successes: number, trials: number, z = WILSON_Z): number {
  if (trials <= 0) return 0;
  const p = successes / trials;
  const z2 = z * z;
  const centre = p + z2 / (2 * trials);
  const margin = z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return Math.min(1, Math.max(0, (centre - margin) / (1 + z2 / trials)));
}

/** Six decimals: enough for a score, and the same digits on every platform's JSON output. */
export function round(value: number, decimals = 6): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
