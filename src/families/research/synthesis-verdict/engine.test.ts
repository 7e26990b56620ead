import { describe, expect, it } from 'vitest';
import { foldVerdict, type CheckedBlock } from './engine.ts';

const NOW = 1_767_225_600;
const signed = (stance: CheckedBlock['stance'], extra: Partial<CheckedBlock> = {}): CheckedBlock => ({ type: 'research', stance, strength: 1, content: 'text', signature: { status: 'service-signed', detail: 'ok' }, ...extra });

describe('the verdict fold', () => {
  it('one usable block: INSUFFICIENT-DATA, the score withheld', () => {
    const record = foldVerdict({ question: 'q', blocks: [signed('supports'), signed('supports', { signature: { status: 'unsigned', detail: 'no signature: listed, weight 0' } })] }, NOW);
    expect(record).toMatchObject({ verdict: 'INSUFFICIENT-DATA', score: null, likelihood: null, usable_blocks: 1, excluded: [{ index: 1, reason: 'no signature: listed, weight 0' }] });
  });

  it('says why a signed block with content counts for nothing: its strength, not "no content"', () => {
    const record = foldVerdict({ question: 'q', blocks: [signed('supports'), signed('supports', { strength: 0, content: 'another finding' }), signed('supports', { content: '  ' })] }, NOW);
    expect(record).toMatchObject({ usable_blocks: 1, excluded: [{ index: 1, reason: expect.stringMatching(/^weight 0: strength 0 /) }, { index: 2, reason: 'no content' }] });
  });

  it('counts the same evidence once however often it is sent, whatever strength each copy claims', () => {
    const once = foldVerdict({ question: 'q', blocks: [signed('supports'), signed('refutes')] }, NOW);
    const repeated = foldVerdict({ question: 'q', blocks: [signed('supports'), signed('refutes'), ...Array.from({ length: 50 }, () => signed('supports', { strength: 1 }))] }, NOW);
    expect(repeated).toMatchObject({ verdict: once.verdict, score: once.score, usable_blocks: 2 });
    expect((repeated.excluded as Array<{ reason: string }>)[0]).toMatchObject({ index: 2, reason: 'duplicate of block 0: the same evidence counts once' });
    // Another content, or another stance, is other evidence.
    expect(foldVerdict({ question: 'q', blocks: [signed('supports'), signed('supports', { content: 'other text' })] }, NOW)).toMatchObject({ usable_blocks: 2 });
  });

  it('agreeing signed blocks: SUPPORTED with the score and its likelihood term', () => {
    const record = foldVerdict({ question: 'q', blocks: [signed('supports'), signed('supports', { type: 'audit', strength: 0.5 })] }, NOW);
    expect(record).toMatchObject({ verdict: 'SUPPORTED', score: 1, disagreement: 0, likelihood: { probability: 1, term: 'virtually certain' } });
  });

  it('weights by signature, type and strength, exactly as published', () => {
    // supports: 1*1*1 = 1; refutes: 0.8 (external) * 1.5 (audit) * 0.5 = 0.6; neutral adds weight, no direction.
    const record = foldVerdict({ question: 'q', blocks: [signed('supports'), signed('refutes', { type: 'audit', strength: 0.5, signature: { status: 'externally-signed', detail: 'ok' } }), signed('neutral', { strength: 0.4 })] }, NOW);
    expect(record).toMatchObject({ verdict: 'CONTESTED', score: 0.2, disagreement: 0.375, likelihood: { probability: 0.6, term: 'about as likely as not' } });
  });

  it('refuting evidence gives REFUTED, weak mixed evidence INCONCLUSIVE', () => {
    expect(foldVerdict({ question: 'q', blocks: [signed('refutes'), signed('refutes', { type: 'quant' })] }, NOW)).toMatchObject({ verdict: 'REFUTED', score: -1 });
    expect(foldVerdict({ question: 'q', blocks: [signed('supports', { strength: 0.3 }), signed('neutral')] }, NOW)).toMatchObject({ verdict: 'INCONCLUSIVE', score: 0.2308 });
  });

  it('a tampered block counts for nothing and is listed with why', () => {
    const record = foldVerdict({ question: 'q', blocks: [signed('supports'), signed('refutes', { signature: { status: 'signature-invalid', detail: 'sha256 does not match the canonical record (changed after signing?)' } }), signed('supports', { content: 'a second study' })] }, NOW);
    expect(record).toMatchObject({ verdict: 'SUPPORTED', usable_blocks: 2, excluded: [{ index: 1, reason: expect.stringMatching(/sha256 does not match/) }] });
  });
});
