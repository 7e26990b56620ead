import { describe, expect, it } from 'vitest';
import { StreamUses } from './stream-uses.ts';

describe('the uses of streams, weighed over recent loads', () => {
  it('counts each load, answers what the stream weighed before it, and halves a weight over each half-life of loads since', () => {
    const uses = new StreamUses(() => 10);
    expect(uses.count('a')).toBe(0);
    expect(uses.count('a')).toBeCloseTo(2 ** -0.1, 10);
    expect(uses.of('never')).toBe(0);
    const weight = uses.of('a');
    for (let i = 0; i < 10; i++) uses.count(`other ${i}`);
    expect(uses.of('a')).toBeCloseTo(weight / 2, 10);
  });

  it('weighs streams taking turns alike, the one used longest ago least, so that a turn does not outweigh the rest', () => {
    const uses = new StreamUses(() => 64);
    const streams = Array.from({ length: 8 }, (_, i) => `turn ${i}`);
    for (let round = 0; round < 50; round++) for (const stream of streams) uses.count(stream);
    const weights = streams.map((stream) => uses.of(stream));
    expect(weights).toEqual([...weights].sort((a, b) => a - b));
    // The next in turn weighed, before its load, less than every other.
    expect(uses.count('turn 0')).toBeLessThan(Math.min(...weights.slice(1)));
  });

  it('lets a stream busy long ago fade below one busy now', () => {
    const uses = new StreamUses(() => 64);
    for (let i = 0; i < 100; i++) uses.count('busy long ago');
    for (let i = 0; i < 400; i++) uses.count(i % 4 === 0 ? 'busy now' : `passing ${i}`);
    expect(uses.of('busy now')).toBeGreaterThan(uses.of('busy long ago'));
  });

  it('holds at most five half-lives of streams, however many are loaded', () => {
    const uses = new StreamUses(() => 200);
    let held = 0;
    for (let i = 0; i < 50_000; i++) {
      uses.count(i % 3 === 0 ? `repeated ${i % 99}` : `new ${i}`);
      held = Math.max(held, uses.size);
    }
    expect(held).toBeLessThanOrEqual(5 * 200);
  });
});
