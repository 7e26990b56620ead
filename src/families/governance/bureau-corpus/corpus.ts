import { bureauAuditRecordedSchema, GOVERNANCE_EVENT_TYPES } from '../events.ts';
import type { EventStore } from '../../../events/port.ts';
import { MerkleLog } from '../../../signing/merkle-log.ts';
import { canonicalBytes, type JsonObject } from '../../../signing/rfc8785.ts';

export interface CorpusEntry {
  /** Position in the corpus (0-based, oldest first): the Merkle leaf index. */
  index: number;
  auditId: string;
  record: JsonObject;
  sha256: string;
  ed25519Sig: string;
  keyId: string;
}

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

function evolve(state: CorpusState, data: unknown): void {
  const audit = bureauAuditRecordedSchema.parse(data);
  const index = state.tree.append(canonicalBytes(audit.record));
  state.entries.push({ index, auditId: audit.auditId, record: audit.record, sha256: audit.sha256, ed25519Sig: audit.ed25519Sig, keyId: audit.keyId });
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
      if (event.type === GOVERNANCE_EVENT_TYPES.bureauAuditRecorded) evolve(entry.state, event.data);
      entry.position = event.position;
    }
  });
  // A failed read (store unavailable) must not poison later reads: they retry from the same position.
  entry.catchingUp = run.catch(() => undefined);
  await run;
  return entry.state;
}
