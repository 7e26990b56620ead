import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { veritrackInput } from './operation.ts';
import { attestClaim } from './engine.ts';
import { canonicalText } from '../../../signing/rfc8785.ts';

describe('veritrack engine', () => {
  it('carries the claim verbatim into {kind, attestedAt, claim}', () => {
    expect(attestClaim({ kind: 'model-eval', claim: { a: [1, { b: null }] } }, 5)).toEqual({ kind: 'model-eval', attestedAt: 5, claim: { a: [1, { b: null }] } });
  });

  it('is deterministic apart from attestedAt', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), fc.nat(), (claim, t1, t2) => {
        const input = { kind: 'k', claim: claim as never };
        expect(canonicalText({ ...attestClaim(input, t1), attestedAt: 0 })).toBe(canonicalText({ ...attestClaim(input, t2), attestedAt: 0 }));
      }),
    );
  });

  it('takes a claim within the depth and size limits and a short token kind, and refuses others', () => {
    expect(veritrackInput.safeParse({ kind: 'model-eval.v2', claim: { x: 1 } }).success).toBe(true);
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(veritrackInput.safeParse({ kind: 'k', claim: deep }).success).toBe(false);
    expect(veritrackInput.safeParse({ kind: 'k', claim: { big: 'x'.repeat(5000) } }).success).toBe(false);
    expect(veritrackInput.safeParse({ kind: 'has space', claim: {} }).success).toBe(false);
    expect(veritrackInput.safeParse({ kind: 'k', claim: [1] }).success).toBe(false);
  });
});
