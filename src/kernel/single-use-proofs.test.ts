import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SingleUseProofs } from './single-use-proofs.ts';

const WINDOW = 300;

describe('SingleUseProofs', () => {
  it('accepts a proof once and refuses it every time after, while other proofs stay good', () => {
    const proofs = new SingleUseProofs(WINDOW);
    expect(proofs.use('alice agent-1 1000', 1000, 1000)).toBe('first');
    expect(proofs.use('alice agent-1 1000', 1000, 1001)).toBe('again');
    expect(proofs.use('alice agent-1 1000', 1000, 1299)).toBe('again');
    expect(proofs.use('alice agent-1 1001', 1001, 1001)).toBe('first');
    expect(proofs.use('bob agent-1 1000', 1000, 1001)).toBe('first');
  });

  it('check answers as use would, and uses nothing', () => {
    const proofs = new SingleUseProofs(WINDOW);
    expect(proofs.check('p', 1000)).toBe('first');
    expect(proofs.check('p', 1000)).toBe('first');
    expect(proofs.size).toBe(0);
    expect(proofs.use('p', 1000, 1000)).toBe('first');
    expect(proofs.check('p', 1000)).toBe('again');
  });

  it('when full, drops the proofs whose window has closed, and nothing else', () => {
    const proofs = new SingleUseProofs(WINDOW, 3);
    proofs.use('a', 1000, 1000);
    proofs.use('b', 1100, 1100);
    proofs.use('c', 1200, 1200);
    // At 1350, a's window (closing at 1300) is over: it makes room for d.
    expect(proofs.use('d', 1350, 1350)).toBe('first');
    expect(proofs.size).toBe(3);
    expect(proofs.use('b', 1100, 1350)).toBe('again');
    expect(proofs.use('c', 1200, 1350)).toBe('again');
  });

  it('full of open windows, forgets the earliest-closing and refuses any proof that old from then on', () => {
    const proofs = new SingleUseProofs(WINDOW, 10);
    for (let i = 0; i < 10; i++) expect(proofs.use(`p${i}`, 1000 + i, 1010)).toBe('first');
    expect(proofs.use('new', 1010, 1010)).toBe('first');
    expect(proofs.size).toBeLessThanOrEqual(10);
    // p0 was forgotten: it is not accepted again, nor is an unseen proof signed as early.
    expect(proofs.use('p0', 1000, 1011)).toBe('too-old');
    expect(proofs.use('unseen', 1000, 1011)).toBe('too-old');
    expect(proofs.use('p5', 1005, 1011)).toBe('again');
  });

  it('never accepts a proof twice, and never holds more than its capacity, whatever the order of uses', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.record({ key: fc.integer({ min: 0, max: 3 }), signedAt: fc.integer({ min: 0, max: 15 }), advance: fc.integer({ min: 0, max: 2 }) }), { maxLength: 120 }),
        (capacity, uses) => {
          const proofs = new SingleUseProofs(10, capacity);
          const accepted = new Set<string>();
          let now = 0;
          for (const { key, signedAt, advance } of uses) {
            now += advance;
            // The caller only asks about proofs inside their window.
            if (Math.abs(now - signedAt) > 10) continue;
            const name = `${key}@${signedAt}`;
            const answer = proofs.use(name, signedAt, now);
            if (answer === 'first') {
              expect(accepted.has(name)).toBe(false);
              accepted.add(name);
            }
            expect(proofs.size).toBeLessThanOrEqual(capacity);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('given the second its process started, refuses every proof signed before it, which an earlier process may have accepted', () => {
    const started = 1_000;
    const proofs = new SingleUseProofs(WINDOW, 100, started);
    expect(proofs.use('signed before the start', started - 1, started + 10)).toBe('too-old');
    expect(proofs.check('signed long before', started - WINDOW)).toBe('too-old');
    expect(proofs.use('signed at the start', started, started + 10)).toBe('first');
    expect(proofs.use('signed at the start', started, started + 11)).toBe('again');
    expect(proofs.use('signed ahead of the clock', started + WINDOW, started)).toBe('first');
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new SingleUseProofs(WINDOW, 0)).toThrow(/capacity/);
  });
});
