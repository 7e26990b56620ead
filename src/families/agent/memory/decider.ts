import { z } from 'zod';
import { nextVersion, type MemoryVersion } from './chain.ts';
import { MEMORY_EVENT_TYPES, memoryVersionSchema, type MemoryEvent } from './events.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import type { Decider, RecordPlace } from '../../../kernel/decider.ts';
import { emptyRecordPlaces, recordPlacePieces, withPlacesOf, type RecordPlaces } from '../../../kernel/record-places.ts';
import { headThenList } from '../../../kernel/state-snapshots.ts';

/**
 * One payer's memory store: whose it is, its latest version whole, and where each version lies
 * in the stream, in order, with the payment that wrote it (how a resumed put finds the version it
 * already wrote). Earlier versions are read from the stream when asked for (commands.ts): a
 * store's state held every value it was ever given, so a store of 1,000 versions of 60 KB held
 * 58 MiB of heap on every call, and one of 40,000 about 2.3 GiB.
 */
export interface MemoryState {
  owner: string | null;
  latest: MemoryVersion | undefined;
  /** Where each version lies, by the payment that wrote it: version n is place n - 1. */
  versions: RecordPlaces;
  /** Events folded: the revision of the next one. */
  events: number;
  /** The latest version's value, in characters of JSON: with the places, what the kept states' bound counts (keptSize). */
  latestValueChars: number;
}

/** Where a version lies: its number, the revision of its event in the store's stream, and the payment that wrote it. */
export interface VersionPlace extends RecordPlace {
  version: number;
}

export interface PutMemory {
  agent_id: string;
  key: string;
  value: JsonValue;
  payer: string;
  paymentId: string;
  now: number;
}

export const initialMemoryState: MemoryState = { owner: null, latest: undefined, versions: emptyRecordPlaces(), events: 0, latestValueChars: 0 };

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
    const events = state.events + 1;
    switch (event.type) {
      case MEMORY_EVENT_TYPES.opened:
        return { ...state, owner: event.data.owner, events };
      case MEMORY_EVENT_TYPES.versionWritten: {
        const { paymentId, ...version } = event.data;
        const versions = state.versions.append({ revision: state.events, paymentId });
        return { ...state, latest: version as MemoryVersion, versions, events, latestValueChars: JSON.stringify(version.value).length };
      }
    }
  },
  // What the state holds: a version's place (revision, payment: about 200 characters of JSON with
  // the payment's id, 24 bytes once archived: record-places.ts) and one value, the latest.
  keptSize: (state) => state.versions.keptChars(200) + state.latestValueChars,
  snapshot: {
    kind: 'memory-store',
    version: 2,
    *encode(state) {
      const { owner, latest, events, latestValueChars } = state;
      yield ['store', { owner, latest: latest ? versionJson(latest) : null, events, latestValueChars }];
      yield* recordPlacePieces(state.versions);
    },
    decoder: () => headThenList('memory', storeOf, emptyRecordPlaces(), withPlacesOf, (store, versions) => ({ ...store, versions })),
  },
};

function versionJson({ owner, ...version }: MemoryVersion): JsonObject {
  return { ...(owner === undefined ? {} : { owner }), ...version };
}

const storePiece = z.tuple([
  z.literal('store'),
  z.object({ owner: z.string().nullable(), latest: memoryVersionSchema.nullable(), events: z.number().int().nonnegative(), latestValueChars: z.number().int().nonnegative() }).strict(),
]);

function storeOf(piece: JsonValue): Omit<MemoryState, 'versions'> {
  const { latest, ...counts } = storePiece.parse(piece)[1];
  return { ...counts, latest: latest ?? undefined };
}

/** The place of the version this payment wrote, if it wrote one. */
export function versionWrittenBy(state: MemoryState, paymentId: string): VersionPlace | undefined {
  const place = state.versions.latestWithKey(paymentId);
  return place && { version: place.index + 1, revision: place.revision, paymentId };
}

export const latestVersion = (state: MemoryState): MemoryVersion | undefined => state.latest;

/** The place of version `number` (the first is 1), if written. */
export function versionNumbered(state: MemoryState, number: number): Omit<VersionPlace, 'paymentId'> | undefined {
  const revision = state.versions.revisionOf(number - 1);
  return revision === undefined ? undefined : { version: number, revision };
}
