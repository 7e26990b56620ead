import { nextVersion, type MemoryVersion } from './chain.ts';
import { MEMORY_EVENT_TYPES, type MemoryEvent } from './events.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import type { Decider } from '../../../kernel/decider.ts';
import { KeyedHistory } from '../../../kernel/keyed-history.ts';

/** One payer's memory store: whose it is, and its versions in order with the payment that wrote each (how a resumed put finds the version it already wrote). */
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

/**
 * A stream of another payer's store handed to a put or a get of this payer. Every store is its
 * payer's alone (commands.ts picks the stream from the payer), so this is a fault of the service,
 * never an answer to a caller: nothing is read from or written to that store.
 */
export class ForeignMemoryStore extends Error {
  constructor(owner: string, payer: string) {
    super(`memory store of ${owner} handed to a call of ${payer}`);
    this.name = 'ForeignMemoryStore';
  }
}

/** Throws unless the store is the payer's own or is not opened yet. */
export function assertOwnStore(state: Pick<MemoryState, 'owner'>, payer: string): void {
  if (state.owner !== null && state.owner !== payer.toLowerCase()) throw new ForeignMemoryStore(state.owner, payer.toLowerCase());
}

export const memoryDecider: Decider<PutMemory, MemoryEvent, MemoryState> = {
  initialState: initialMemoryState,
  decide(put, state) {
    assertOwnStore(state, put.payer);
    // A resumed put finds its own version already written: nothing more to append.
    if (versionWrittenBy(state, put.paymentId)) return [];
    const opened: MemoryEvent[] =
      state.owner === null
        ? [{ type: MEMORY_EVENT_TYPES.opened, data: { agent_id: put.agent_id, key: put.key, owner: put.payer.toLowerCase(), openedAt: put.now, paymentId: put.paymentId } }]
        : [];
    const version = nextVersion(latestVersion(state), { owner: put.payer, agent_id: put.agent_id, key: put.key, value: put.value, writtenAt: put.now });
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
