import { describe, expect, it } from 'vitest';
import { once } from './once.ts';

describe('once', () => {
  it('makes the value at the first call only, and keeps it, undefined included', () => {
    let made = 0;
    const value = once(() => {
      made++;
      return made === 1 ? undefined : 'again';
    });
    expect(made).toBe(0);
    expect(value()).toBeUndefined();
    expect(value()).toBeUndefined();
    expect(made).toBe(1);
  });
});
