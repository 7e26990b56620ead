import { describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../../../events/memory-store.ts';
import { findOperation } from '../../../catalog/index.ts';
import type { PricedOperation } from '../../../kernel/operation.ts';
import { runOperation } from '../../../kernel/run-operation.ts';
import { testCallContext } from '../../../../test/support/call-context.ts';
import { payerChainStream } from './events.ts';
import { containmentRegister } from './operation.ts';

const register = findOperation('containment.register') as PricedOperation<Record<string, unknown>>;

describe('a registration chain', () => {
  it('answers a call resumed after later registrations with the record it wrote, read back from the chain (the state keeps where, not what)', async () => {
    const store = createMemoryEventStore();
    const input = register.input.parse(containmentRegister.example);
    const first = testCallContext({ store });
    const written = await runOperation(register, input, first);
    const later = await runOperation(register, register.input.parse({ ...containmentRegister.example, policy: { escalation: 'notify only' } }), testCallContext({ store, now: first.now + 60 }));
    expect(later.record).toMatchObject({ version: 2, supersedes: written.record['registration_id'] });

    const resumed = await runOperation(register, input, { ...first, now: first.now + 90 });
    expect(resumed.body).toEqual(written.body);
    expect(await store.readStream(payerChainStream(first.payer, String(input['agent_did'])))).toHaveLength(2);
  });
});
