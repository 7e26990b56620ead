import { bureauAuditRecordedSchema, GOVERNANCE_EVENT_TYPES, type BureauAuditRecorded } from '../events.ts';
import type { EventStore, RecordedEvent } from '../../../events/port.ts';
import { MerkleLog } from '../../../signing/merkle-log.ts';
import { canonicalBytes } from '../../../signing/rfc8785.ts';

/**
 * Where an audit of the corpus is in the log. Its record is not held here: a corpus of 100,000
 * audits of a few KB each would keep hundreds of MB for the pages that show 20 of them; a page
 * reads its items back from their streams (readEntry).
 */
export interface CorpusEntry {
  /** Position in the corpus (0-based, oldest first): the Merkle leaf index. */
  index: number;
  stream: string;
  revision: bigint;
}

export type CorpusAudit = BureauAuditRecorded & { index: number };

export interface CorpusState {
  entries: CorpusEntry[];
  /**
   * The RFC 6962 tree over the entries' canonical records, grown by one leaf per audit as it is
   * folded: each record is canonicalised and hashed once, not again at every read of the corpus.
   */
  tree: MerkleLog;
  /** Failed-check counts by check id over the whole corpus. */
  defects: Record<string, number>;
}

interface Cached {
  state: CorpusState;
  /** Last global position read: the next catch-up reads only what is newer. */
  position: bigint | undefined;
  catchingUp: Promise<void>;
}

const cache = new WeakMap<EventStore, Cached>();

function evolve(state: CorpusState, event: RecordedEvent): void {
  const audit = bureauAuditRecordedSchema.parse(event.data);
  const index = state.tree.append(canonicalBytes(audit.record));
  state.entries.push({ index, stream: event.stream, revision: event.revision });
  const defects = Array.isArray(audit.record.defects) ? audit.record.defects : [];
  for (const id of defects) if (typeof id === 'string') state.defects[id] = (state.defects[id] ?? 0) + 1;
}

/**
 * The bureau corpus, folded from the log in position order and cached per store: each call
 * reads only the events appended since the last one. Catch-ups are serialised so that two
 * concurrent readers never fold the same event twice.
 */
export async function readCorpus(store: EventStore): Promise<CorpusState> {
  let cached = cache.get(store);
  if (!cached) {
    cached = { state: { entries: [], tree: new MerkleLog(), defects: {} }, position: undefined, catchingUp: Promise.resolve() };
    cache.set(store, cached);
  }
  const entry = cached;
  const run = entry.catchingUp.then(async () => {
    for await (const event of store.readAll(entry.position === undefined ? {} : { fromPosition: entry.position })) {
      if (event.type === GOVERNANCE_EVENT_TYPES.bureauAuditRecorded) evolve(entry.state, event);
      entry.position = event.position;
    }
  });
  // A failed read (store unavailable) must not poison later reads: they retry from the same position.
  entry.catchingUp = run.catch(() => undefined);
  await run;
  return entry.state;
}

/** The audit of a corpus entry, read back from its stream: the log holds it, append-only. */
export async function readEntry(store: EventStore, entry: CorpusEntry): Promise<CorpusAudit> {
  const [event] = await store.readStream(entry.stream, { fromRevision: entry.revision, maxCount: 1 });
  if (event?.type !== GOVERNANCE_EVENT_TYPES.bureauAuditRecorded) throw new Error(`audit ${entry.index} of the corpus is missing from ${entry.stream} at revision ${entry.revision}`);
  return { ...bureauAuditRecordedSchema.parse(event.data), index: entry.index };
}
