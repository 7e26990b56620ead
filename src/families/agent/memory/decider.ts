import { nextVersion, type MemoryVersion } from './chain.ts';
import { MEMORY_EVENT_TYPES, type MemoryEvent } from './events.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { DomainRefusal, type Decider } from '../../../kernel/decider.ts';
import { KeyedHistory } from '../../../kernel/keyed-history.ts';

/** One memory store: who owns it, and its versions in order with the payment that wrote each (how a resumed put finds the version it already wrote). */
export interface MemoryState {
  owner: string | null;
  versions: KeyedHistory<{ version: MemoryVersion; paymentId: string }>;
}

export interface PutMemory {
  agent_id: string;
  key: string;
  value: JsonValue;
  payer: string;
  paymentId: string;
  now: number;
}

export const initialMemoryState: MemoryState = { owner: null, versions: KeyedHistory.empty((v) => v.paymentId) };

export function foreignPayerRefusal(): DomainRefusal {
  return new DomainRefusal(403, 'forbidden', 'this memory store belongs to another payer');
}

/** Whether `payer` may read or write the store: anyone may create it, only the owner may use it. */
export function mayUseStore(state: Pick<MemoryState, 'owner'>, payer: string): boolean {
  return state.owner === null || state.owner === payer.toLowerCase();
}

export const memoryDecider: Decider<PutMemory, MemoryEvent, MemoryState> = {
  initialState: initialMemoryState,
  decide(put, state) {
    if (!mayUseStore(state, put.payer)) throw foreignPayerRefusal();
    // A resumed put finds its own version already written: nothing more to append.
    if (versionWrittenBy(state, put.paymentId)) return [];
    const opened: MemoryEvent[] =
      state.owner === null
        ? [{ type: MEMORY_EVENT_TYPES.opened, data: { agent_id: put.agent_id, key: put.key, owner: put.payer.toLowerCase(), openedAt: put.now, paymentId: put.paymentId } }]
        : [];
    const version = nextVersion(latestVersion(state), { agent_id: put.agent_id, key: put.key, value: put.value, writtenAt: put.now });
    return [...opened, { type: MEMORY_EVENT_TYPES.versionWritten, data: { ...version, paymentId: put.paymentId } }];
  },
  evolve(state, event) {
    switch (event.type) {
      case MEMORY_EVENT_TYPES.opened:
        return { ...state, owner: event.data.owner };
      case MEMORY_EVENT_TYPES.versionWritten: {
        const { paymentId, ...version } = event.data;
        return { ...state, versions: state.versions.append({ version: version as MemoryVersion, paymentId }) };
      }
    }
  },
};

export function versionWrittenBy(state: MemoryState, paymentId: string): MemoryVersion | undefined {
  return state.versions.latestWithKey(paymentId)?.version;
}

export const latestVersion = (state: MemoryState): MemoryVersion | undefined => state.versions.last()?.version;

/** Version `number` (the first is 1), if written. */
export const versionNumbered = (state: MemoryState, number: number): MemoryVersion | undefined => state.versions.at(number - 1)?.version;
