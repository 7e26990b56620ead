import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../../../test/support/decider-spec.ts';
import { containmentDecider, type RegisterContainment } from './decider.ts';
import type { ContainmentInput } from './engine.ts';
import type { ContainmentEvent } from './events.ts';
import { containmentRegister } from './operation.ts';

const input = containmentRegister.example as ContainmentInput;
const alice = `0x${'a1'.repeat(20)}`;
const bob = `0x${'b0'.repeat(20)}`;
const register = (payer: string, paymentId: string, now = 100): RegisterContainment => ({ input, payer, paymentId, now });
const spec = deciderSpec(containmentDecider);
const first = spec.given([]).when(register(alice, 'p1')).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];

describe('the containment decider', () => {
  it('a first registration opens the agent\'s stream, registered by its payer', () => {
    expect(first[0]!.data).toMatchObject({ registrar: alice, paymentId: 'p1', registration: { version: 1, supersedes: null } });
  });

  it('a later registration by the same payer supersedes the earlier one; the history stays', () => {
    const [second] = spec.given(first).when(register(alice, 'p2', 200)).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];
    expect(second!.data.registration).toMatchObject({ version: 2, supersedes: first[0]!.data.registration_id, registeredAt: 200 });
    expect(spec.given([...first, second!]).state.registrations).toHaveLength(2);
  });

  it('another payer cannot supersede it (403, nothing written), and a resumed call writes nothing twice', () => {
    spec.given(first).when(register(bob, 'p3')).thenRefuses({ status: 403, error: 'forbidden' });
    spec.given(first).when(register(alice, 'p1')).thenNothing();
  });
});
