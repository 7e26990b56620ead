import { describe, it } from 'vitest';
import { deciderSpec } from '../../../../test/support/decider-spec.ts';
import { memoryDecider, type PutMemory } from './decider.ts';
import { GENESIS_STATE_HASH, nextVersion } from './chain.ts';
import { MEMORY_EVENT_TYPES, type MemoryEvent } from './events.ts';
import { PAYER_A, PAYER_B } from '../../../../test/support/call-context.ts';

const put = (overrides: Partial<PutMemory> = {}): PutMemory => ({
  agent_id: 'agent-1',
  key: 'prefs',
  value: { lang: 'en' },
  payer: PAYER_A,
  paymentId: 'payment-a-1',
  now: 1_767_225_600,
  ...overrides,
});

const opened = (owner = PAYER_A): MemoryEvent => ({
  type: MEMORY_EVENT_TYPES.opened,
  data: { agent_id: 'agent-1', key: 'prefs', owner, openedAt: 1_767_225_600, paymentId: 'payment-a-1' },
});
const firstVersion = nextVersion(undefined, { agent_id: 'agent-1', key: 'prefs', value: { lang: 'en' }, writtenAt: 1_767_225_600 });
const written: MemoryEvent = { type: MEMORY_EVENT_TYPES.versionWritten, data: { ...firstVersion, paymentId: 'payment-a-1' } };

const { given } = deciderSpec(memoryDecider);

describe('memory decider', () => {
  it('given no events, when a put, then the store opens for the payer and version 1 links to genesis', () => {
    given([])
      .when(put())
      .thenMatches([
        { type: MEMORY_EVENT_TYPES.opened, data: { owner: PAYER_A, agent_id: 'agent-1', key: 'prefs' } },
        { type: MEMORY_EVENT_TYPES.versionWritten, data: { version: 1, prevStateHash: GENESIS_STATE_HASH, paymentId: 'payment-a-1' } },
      ]);
  });

  it('given an opened store with one version, when the owner puts again, then version 2 links to version 1', () => {
    given([opened(), written])
      .when(put({ paymentId: 'payment-a-2', value: 2 }))
      .thenMatches([{ type: MEMORY_EVENT_TYPES.versionWritten, data: { version: 2, prevStateHash: firstVersion.stateHash, value: 2 } }]);
  });

  it('given the version this payment already wrote, when the same put resumes, then nothing new is appended', () => {
    given([opened(), written]).when(put()).thenNothing();
  });

  it('given a store owned by another payer, when a put, then it is refused with 403 and no events', () => {
    given([opened(PAYER_A), written]).when(put({ payer: PAYER_B, paymentId: 'payment-b-1' })).thenRefuses({ status: 403, error: 'forbidden' });
  });

  it('treats the payer address case-insensitively', () => {
    given([opened(PAYER_A), written])
      .when(put({ payer: PAYER_A.toUpperCase().replace('0X', '0x'), paymentId: 'p-2' }))
      .thenMatches([{ type: MEMORY_EVENT_TYPES.versionWritten }]);
  });
});
