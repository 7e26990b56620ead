import { nextVersion, type MemoryVersion } from './chain.ts';
import { MEMORY_EVENT_TYPES, type MemoryEvent } from './events.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { DomainRefusal, type Decider } from '../../../kernel/decider.ts';

/** One memory store: who owns it, its versions in order, and which payment wrote each. */
export interface MemoryState {
  owner: string | null;
  versions: MemoryVersion[];
  /** paymentId -> version number: how a resumed put finds the version it already wrote. */
  versionByPayment: ReadonlyMap<string, number>;
}

export interface PutMemory {
  agent_id: string;
  key: string;
  value: JsonValue;
  payer: string;
  paymentId: string;
  now: number;
}

export const initialMemoryState: MemoryState = { owner: null, versions: [], versionByPayment: new Map() };

export function foreignPayerRefusal(): DomainRefusal {
  return new DomainRefusal(403, 'forbidden', 'this memory store belongs to another payer; nothing was charged or changed');
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
    if (state.versionByPayment.has(put.paymentId)) return [];
    const opened: MemoryEvent[] =
      state.owner === null
        ? [{ type: MEMORY_EVENT_TYPES.opened, data: { agent_id: put.agent_id, key: put.key, owner: put.payer.toLowerCase(), openedAt: put.now, paymentId: put.paymentId } }]
        : [];
    const version = nextVersion(state.versions.at(-1), { agent_id: put.agent_id, key: put.key, value: put.value, writtenAt: put.now });
    return [...opened, { type: MEMORY_EVENT_TYPES.versionWritten, data: { ...version, paymentId: put.paymentId } }];
  },
  evolve(state, event) {
    switch (event.type) {
      case MEMORY_EVENT_TYPES.opened:
        return { ...state, owner: event.data.owner };
      case MEMORY_EVENT_TYPES.versionWritten: {
        const { paymentId, ...version } = event.data;
        const versionByPayment = new Map(state.versionByPayment).set(paymentId, version.version);
        return { ...state, versions: [...state.versions, version as MemoryVersion], versionByPayment };
      }
    }
  },
};

export function versionWrittenBy(state: MemoryState, paymentId: string): MemoryVersion | undefined {
  const number = state.versionByPayment.get(paymentId);
  return number === undefined ? undefined : state.versions[number - 1];
}
