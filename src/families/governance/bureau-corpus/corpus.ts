import { bureauAuditRecordedSchema, GOVERNANCE_EVENT_TYPES, type BureauAuditRecorded } from '../events.ts';
import type { EventLogger } from '../../../events/file-log/logger.ts';
import { logEndsBefore } from '../../../events/log-end.ts';
import type { EventStore, RecordedEvent, Subscription } from '../../../events/port.ts';
import type { ReadModel } from '../../../kernel/operation.ts';
import { MerkleLog } from '../../../signing/merkle-log.ts';
import { leafHash } from '../../../signing/rfc6962-merkle.ts';
import { canonicalBytes } from '../../../signing/rfc8785.ts';
import { CorpusFile, type SavedCorpus, type SavedEntry } from './corpus-file.ts';

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

/** An audit's leaf hash in the corpus tree: of its record's RFC 8785 bytes. */
const leafOf = (audit: BureauAuditRecorded): Buffer => leafHash(canonicalBytes(audit.record));

/** A started corpus saves what it folded at most this long after folding it. */
const SAVE_INTERVAL_MS = 1_000;

/**
 * The corpus of one store, folded in log position order from two sides: each read catches up
 * with the log (readCorpus: every audit recorded before the read is in its answer), and, once
 * the service started it (bureauCorpusReadModel), a subscription follows the log between reads
 * and a file keeps the corpus across starts. Either side folds only events past `position`, and
 * each goes in order from the position it started at, so every event is folded exactly once.
 */
class FollowedCorpus {
  readonly state: CorpusState = { entries: [], tree: new MerkleLog(), defects: {} };
  /** Last global position folded in: the next read starts after it. */
  position: bigint | undefined;
  private catchingUp: Promise<void> = Promise.resolve();
  private file: CorpusFile | undefined;
  private saveTimer: NodeJS.Timeout | undefined;
  private subscription: Subscription | undefined;
  /** Set once the corpus no longer follows the log: stopped, or held at an audit it cannot read. */
  private done = false;

  constructor(private readonly store: EventStore) {}

  /** Starts from what `file` saved, once the log is found to hold its last audit; a file it does not match is emptied. */
  async resumeFrom(file: CorpusFile, saved: SavedCorpus, log: EventLogger): Promise<void> {
    this.file = file;
    const last = saved.entries.at(-1);
    if (last && !(await this.logHolds(last))) {
      log.warn({ stream: last.stream, revision: String(last.revision) }, 'bureau corpus: the log does not hold the last audit of its saved file; folding the corpus from the log');
      await file.discard();
      return;
    }
    // A log restored from a backup may hold the last audit and still end before the checkpoint.
    const { endsBefore, logEnd } = await logEndsBefore(this.store, saved.position);
    if (endsBefore) {
      log.warn({ checkpoint: String(saved.position), head: String(logEnd) }, 'bureau corpus: the log ends before the checkpoint of its saved file; folding the corpus from the log');
      await file.discard();
      return;
    }
    for (const entry of saved.entries) this.addEntry(entry.stream, entry.revision, entry.leafHash, entry.defects);
    this.position = saved.position;
  }

  private async logHolds(entry: SavedEntry): Promise<boolean> {
    // A store that cannot be read fails the start, as it does elsewhere: a good file is not emptied for it.
    const [event] = await this.store.readStream(entry.stream, { fromRevision: entry.revision, maxCount: 1 });
    if (event?.type !== GOVERNANCE_EVENT_TYPES.bureauAuditRecorded) return false;
    return leafOf(bureauAuditRecordedSchema.parse(event.data)).equals(entry.leafHash);
  }

  /** Folds in every event up to the log's end as of now; catch-ups run one at a time. */
  catchUp(): Promise<void> {
    const run = this.catchingUp.then(async () => {
      for await (const event of this.store.readAll(this.position === undefined ? {} : { fromPosition: this.position })) this.fold(event);
    });
    // A failed read (store unavailable) must not poison later reads: they retry from the same position.
    this.catchingUp = run.catch(() => undefined);
    return run;
  }

  /** Folds one event in, unless a read or a delivery already did. */
  fold(event: RecordedEvent): void {
    if (this.position !== undefined && event.position <= this.position) return;
    if (event.type === GOVERNANCE_EVENT_TYPES.bureauAuditRecorded) {
      const audit = bureauAuditRecordedSchema.parse(event.data);
      const defects = Array.isArray(audit.record.defects) ? audit.record.defects.filter((id): id is string => typeof id === 'string') : [];
      const hash = leafOf(audit);
      this.addEntry(event.stream, event.revision, hash, defects);
      this.file?.add({ stream: event.stream, revision: event.revision, leafHash: hash, defects });
    }
    this.passed(event.position);
  }

  /** Moves past an event of another type, delivered by its position alone. */
  passed(position: bigint): void {
    if (this.position !== undefined && position <= this.position) return;
    this.position = position;
    if (!this.file) return;
    this.file.advance(position);
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      void this.file?.save();
    }, SAVE_INTERVAL_MS).unref();
  }

  private addEntry(stream: string, revision: bigint, hash: Uint8Array, defects: readonly string[]): void {
    const index = this.state.tree.appendLeafHash(hash);
    this.state.entries.push({ index, stream, revision });
    for (const id of defects) this.state.defects[id] = (this.state.defects[id] ?? 0) + 1;
  }

  /**
   * Catches up by one read, then follows the log from there, passing over the events of other
   * types by position. A subscription started at once would read the same events again beside
   * that read (twice the first start's read of a long log).
   */
  startFollowing(log: EventLogger): void {
    void this.catchUp()
      .catch(() => undefined)
      .then(() => this.subscribe(log));
  }

  private subscribe(log: EventLogger): void {
    if (this.done) return;
    this.subscription = this.store.subscribeToAll({
      ...(this.position === undefined ? {} : { fromPosition: this.position }),
      eventTypes: [GOVERNANCE_EVENT_TYPES.bureauAuditRecorded],
      onEvent: (event) => {
        try {
          this.fold(event);
        } catch (err) {
          // An audit the corpus cannot read stays in its way: requests read it again and fail
          // with its reason, rather than a corpus that silently leaves an audit out.
          this.done = true;
          log.error({ position: String(event.position), error: (err as Error).message }, 'bureau corpus: an audit event cannot be read; no longer following the log');
          void this.subscription?.close();
        }
      },
      onPassed: (position) => this.passed(position),
      onError: (err) => {
        if (this.done) return;
        log.warn({ error: err.message }, 'bureau corpus: its subscription dropped; following the log again from what is folded');
        setTimeout(() => this.subscribe(log), 500).unref();
      },
    });
  }

  /** Stops following the log and saves what was folded since the last save; nothing is saved after. */
  async stop(): Promise<void> {
    this.done = true;
    await this.subscription?.close();
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const file = this.file;
    this.file = undefined;
    await file?.save();
  }
}

const followed = new WeakMap<EventStore, FollowedCorpus>();

/**
 * The bureau corpus of `store`, with every audit recorded before the call: the events appended
 * since the last read or delivery are read and folded first.
 */
export async function readCorpus(store: EventStore): Promise<CorpusState> {
  let corpus = followed.get(store);
  if (!corpus) followed.set(store, (corpus = new FollowedCorpus(store)));
  await corpus.catchUp();
  return corpus.state;
}

/**
 * Started with the service: the corpus is read from its files in `dir`, then follows the log
 * and passes over the events of other types by their positions, so that neither a start nor the
 * first corpus request after it reads the whole log.
 */
export const bureauCorpusReadModel: ReadModel = {
  name: 'bureau-corpus',
  async start(store, { dir, log }) {
    const corpus = new FollowedCorpus(store);
    const opened = await CorpusFile.open(dir, log).catch((err: Error) => {
      // Only a cache of the log: without it the service starts, and the corpus is folded from the log.
      log.warn({ dir, error: err.message }, 'bureau corpus: its files cannot be read; folding the corpus from the log, and not saving it');
      return undefined;
    });
    if (opened) await corpus.resumeFrom(opened.file, opened.saved, log);
    followed.set(store, corpus);
    corpus.startFollowing(log);
    return { stop: () => corpus.stop() };
  },
};

/** The audit of a corpus entry, read back from its stream: the log holds it, append-only. */
export async function readEntry(store: EventStore, entry: CorpusEntry): Promise<CorpusAudit> {
  const [event] = await store.readStream(entry.stream, { fromRevision: entry.revision, maxCount: 1 });
  if (event?.type !== GOVERNANCE_EVENT_TYPES.bureauAuditRecorded) throw new Error(`audit ${entry.index} of the corpus is missing from ${entry.stream} at revision ${entry.revision}`);
  return { ...bureauAuditRecordedSchema.parse(event.data), index: entry.index };
}
