import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import type { PricedOperation } from '../../../kernel/operation.ts';
import { runOperation } from '../../../kernel/run-operation.ts';
import { testCallContext } from '../../../../test/support/call-context.ts';

/** What discovery and the docs show a caller: the catalogue example, as a paid call signs it. */
const op = findOperation('agent-reputation.composite') as PricedOperation;

describe('agent-reputation catalogue example', () => {
  it('scores: every example event is genuinely signed, none is rejected', async () => {
    const { record, body } = await runOperation(op, op.input.parse(op.example), testCallContext());
    expect(record).toMatchObject({ outcome: 'SCORED', rejected_events: [], counts: { valid: 3, success: 2, failure: 1 }, distinct_signers: 2 });
    expect(record.reputation_score).toBeGreaterThan(0);
    expect(() => op.output.parse(body)).not.toThrow();
  });

  it('marks the events caller-supplied and lists what a signature does not show', async () => {
    const { record } = await runOperation(op, op.input.parse(op.example), testCallContext());
    expect(record.evidence_source).toBe('caller-supplied');
    expect((record.not_performed as Array<{ check: string }>).map((n) => n.check)).toEqual(['signer identity', 'the outcomes themselves']);
  });
});
