import { describe, expect, it } from 'vitest';
import { fold, DomainRefusal } from '../../src/kernel/decider.ts';
import { memoryDecider, type PutMemory } from '../../src/commands/agent/memory-decider.ts';
import { GENESIS_STATE_HASH, nextVersion } from '../../src/engines/agent/memory-chain.ts';
import { MEMORY_EVENT_TYPES, type MemoryEvent } from '../../src/events/domain/agent.ts';
import { PAYER_A, PAYER_B } from '../support/call-context.ts';

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

const given = (events: MemoryEvent[]) => ({ when: (command: PutMemory) => memoryDecider.decide(command, fold(memoryDecider, events)) });

describe('memory decider', () => {
  it('given no events, when a put, then the store opens for the payer and version 1 links to genesis', () => {
    const events = given([]).when(put());
    expect(events.map((e) => e.type)).toEqual([MEMORY_EVENT_TYPES.opened, MEMORY_EVENT_TYPES.versionWritten]);
    expect(events[0]!.data).toMatchObject({ owner: PAYER_A, agent_id: 'agent-1', key: 'prefs' });
    expect(events[1]!.data).toMatchObject({ version: 1, prevStateHash: GENESIS_STATE_HASH, paymentId: 'payment-a-1' });
  });

  it('given an opened store with one version, when the owner puts again, then version 2 links to version 1', () => {
    const events = given([opened(), written]).when(put({ paymentId: 'payment-a-2', value: 2 }));
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ version: 2, prevStateHash: firstVersion.stateHash, value: 2 });
  });

  it('given the version this payment already wrote, when the same put resumes, then nothing new is appended', () => {
    expect(given([opened(), written]).when(put())).toEqual([]);
  });

  it('given a store owned by another payer, when a put, then it is refused with 403 and no events', () => {
    const attempt = () => given([opened(PAYER_A), written]).when(put({ payer: PAYER_B, paymentId: 'payment-b-1' }));
    expect(attempt).toThrow(DomainRefusal);
    try {
      attempt();
    } catch (err) {
      expect((err as DomainRefusal).status).toBe(403);
    }
  });

  it('treats the payer address case-insensitively', () => {
    expect(given([opened(PAYER_A), written]).when(put({ payer: PAYER_A.toUpperCase().replace('0X', '0x'), paymentId: 'p-2' }))).toHaveLength(1);
  });
});
