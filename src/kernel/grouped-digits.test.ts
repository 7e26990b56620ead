import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupedDigits } from './grouped-digits.ts';

describe('groupedDigits', () => {
  it('writes an integer as toLocaleString("en") does', () => {
    expect(groupedDigits(0)).toBe('0');
    expect(groupedDigits(999)).toBe('999');
    expect(groupedDigits(1000)).toBe('1,000');
    expect(groupedDigits(40_000_000)).toBe('40,000,000');
    expect(groupedDigits(-1234567)).toBe('-1,234,567');
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => groupedDigits(n) === n.toLocaleString('en')));
  });

  it('refuses what is not a safe integer', () => {
    expect(() => groupedDigits(1.5)).toThrow(RangeError);
    expect(() => groupedDigits(Number.MAX_SAFE_INTEGER + 2)).toThrow(RangeError);
  });
});
