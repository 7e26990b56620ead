import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mintReceipt, RECEIPT_REQUIRED_FIELDS } from './engine.ts';
import { missingRequiredFields } from '../shared/required-fields.ts';
import { canonicalText } from '../../../signing/rfc8785.ts';

describe('receipt engine', () => {
  it('carries the caller fields verbatim with kind "receipt" and the stamped mintsAt', () => {
    const record = mintReceipt({ receiptType: 'payment', tx: '0xABC', action: '  paid  ', actor: 'alice', subject: 'bob', metadata: { n: 1, nested: { a: [1, 'x'] } } }, 1700000000);
    expect(record).toEqual({ kind: 'receipt', receiptType: 'payment', tx: '0xABC', action: '  paid  ', actor: 'alice', subject: 'bob', metadata: { n: 1, nested: { a: [1, 'x'] } }, mintsAt: 1700000000 });
  });

  it('leaves out optional members that hold their verify default ("" or {})', () => {
    const record = mintReceipt({ receiptType: 'payment', tx: 't', action: 'a', actor: '', subject: '', metadata: {} }, 1);
    expect(Object.keys(record)).toEqual(['kind', 'receiptType', 'tx', 'action', 'mintsAt']);
  });

  it('names every missing or blank required field, in order', () => {
    expect(missingRequiredFields({}, RECEIPT_REQUIRED_FIELDS)).toEqual(['receiptType', 'tx', 'action']);
    expect(missingRequiredFields({ receiptType: 'x', tx: '  ', action: null }, RECEIPT_REQUIRED_FIELDS)).toEqual(['tx', 'action']);
    expect(missingRequiredFields({ receiptType: 'x', tx: 'y', action: 'z' }, RECEIPT_REQUIRED_FIELDS)).toEqual([]);
    expect(missingRequiredFields(null, ['a'])).toEqual(['a']);
    expect(missingRequiredFields([1], ['a'])).toEqual(['a']);
  });

  it('is deterministic: the same input gives the same bytes apart from mintsAt', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.string(), fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), fc.nat(), (tx, action, actor, metadata, t1, t2) => {
        const input = { receiptType: 'r', tx, action, actor, metadata: metadata as never };
        const a = mintReceipt(input, t1);
        const b = mintReceipt(input, t2);
        expect(canonicalText({ ...a, mintsAt: 0 })).toBe(canonicalText({ ...b, mintsAt: 0 }));
      }),
    );
  });
});
