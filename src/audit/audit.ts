import { PAYMENT_EVENT_TYPES } from '../payments/saga/events.ts';
import type { EventStore, RecordedEvent } from '../events/port.ts';
import type { ChainRule } from '../kernel/audit-rule.ts';
import type { AuditFailure } from '../kernel/audit-failure.ts';
import { AuditKeyIndex, screenSignedResult, verdictFailures, type AuditKeys, type ScreenedResult } from './result-check.ts';
import { inlineVerifier, type SignatureVerifier } from './signature-pool.ts';
import { isPaymentStream, sagaStep, unfinishedStep } from './saga.ts';
import { StreamProgress } from './stream-progress.ts';
import { ResultTreeCheck } from './result-tree.ts';
import { ResultStoreCheck } from './result-store-check.ts';
import type { LeafStore } from '../transparency/leaf-store.ts';
import { CHECKPOINT_ISSUED, RESULT_LOG_STREAM } from '../transparency/events.ts';

export type { AuditFailure } from '../kernel/audit-failure.ts';

export interface AuditOptions {
  store: EventStore;
  /** Public keys with their windows: a keyring, or the key history an outside auditor holds. */
  keyring: AuditKeys;
  /** Where digests and signatures are verified: on this thread by default, or a pool of worker threads. */
  verifier?: SignatureVerifier;
  /** The hash-chain rules to apply: the catalogue's `auditRules` for a real log. */
  chainRules: readonly ChainRule[];
  /** Called every `progressEvery` events (default 1,000) and at the end. */
  onProgress?(eventsReplayed: number, position: bigint): void;
  progressEvery?: number;
  /** Failures beyond this many are counted but not kept. Default 1,000. */
  maxFailuresKept?: number;
  /** The service's result log store, opened for reading, to check against the replay (the CLI opens it). */
  resultStore?: LeafStore;
}

export interface AuditReport {
  events: number;
  streams: number;
  /** ResultSigned events re-verified. */
  results: number;
  /** Streams checked by at least one chain rule. */
  chains: number;
  /** Result-log checkpoints checked against the tree rebuilt from the results. */
  checkpoints: number;
  /** Entries of the file log's index on disk checked against its segments (set by the CLI); undefined when not checked. */
  indexChecked?: number;
  /** Leaves of the result log's store checked against the replay; undefined when no store was given. */
  resultStoreChecked?: number;
  /** Runs of the result log store's digest lookup checked (against its leaves, which the replay checks), and their entries. */
  resultStoreDigestRuns?: { runs: number; entries: number };
  lastPosition: bigint | undefined;
  /**
   * Payment streams whose saga has not finished: not a failure (the service resumes them on the
   * client's retry), but an auditor wants to see payments taken with no result (`notSigned`).
   */
  unfinishedPayments: { notSettled: number; notSigned: number; notSignedStreams: string[] };
  failureCount: number;
  failuresByKind: Record<string, number>;
  /** The first `maxFailuresKept` failures found, sorted by log position. */
  failures: AuditFailure[];
  ok: boolean;
}

/**
 * Replays the whole log once, in position order, and re-checks what an outside auditor would:
 * the log's own order (positions increasing, each stream's revisions dense from 0), every signed
 * result, the saga order of every payment stream, and every hash chain of the registry.
 */
export async function auditEventLog(options: AuditOptions): Promise<AuditReport> {
  const rules = options.chainRules;
  const progressEvery = options.progressEvery ?? 1000;
  const maxKept = options.maxFailuresKept ?? 1000;
  const failures: AuditFailure[] = [];
  const failuresByKind: Record<string, number> = {};
  let failureCount = 0;
  const record = (failure: AuditFailure): void => {
    failureCount++;
    failuresByKind[failure.kind] = (failuresByKind[failure.kind] ?? 0) + 1;
    if (failures.length < maxKept) failures.push(failure);
  };

  const progress = new StreamProgress();
  /** The names of payment streams not finished so far, by key: a few at any time, as a call's events follow one another. */
  const unfinished = new Map<string, string>();
  const rulesOf = new Map<string, readonly ChainRule[]>();
  const chained = new Map<string, RecordedEvent[]>();
  const keys = new AuditKeyIndex(options.keyring);
  const logKeys = new Map(options.keyring.history().filter((k) => k.family === 'log').map((k) => [k.keyId, k.publicKeyHex]));
  const resultTree = new ResultTreeCheck((keyId) => logKeys.get(keyId));
  const storeCheck = options.resultStore && new ResultStoreCheck(options.resultStore);
  let events = 0;
  let results = 0;
  let lastPosition: bigint | undefined;
  const signatures = new SignatureBatches(options.verifier ?? inlineVerifier, record);

  try {
    for await (const event of options.store.readAll()) {
      events++;
      if (lastPosition !== undefined && event.position <= lastPosition)
        record({ kind: 'log-order', stream: event.stream, position: event.position, eventId: event.id, message: `position ${event.position} after ${lastPosition}` });
      lastPosition = event.position;
      // Revisions as numbers in the per-stream state, so no BigInt per event.
      const revision = Number(event.revision);
      const stream = progress.keyOf(event.stream);
      const expectedRevision = progress.nextRevision(stream);
      if (revision !== expectedRevision)
        record({ kind: 'log-order', stream: event.stream, position: event.position, revision: event.revision, eventId: event.id, message: `revision ${event.revision}, expected ${expectedRevision}` });
      let sagaSteps = progress.sagaSteps(stream);
      if (isPaymentStream(event.stream)) {
        const step = sagaStep(event, sagaSteps);
        if (step.failure) record(step.failure);
        sagaSteps = step.seen;
        if (!unfinishedStep(sagaSteps)) unfinished.delete(stream);
        else if (unfinished.size < UNFINISHED_NAMES_KEPT || unfinished.has(stream)) unfinished.set(stream, event.stream);
      }
      progress.set(stream, revision + 1, sagaSteps);

      if (event.type === PAYMENT_EVENT_TYPES.signed) {
        results++;
        const screened = screenSignedResult(event, keys);
        for (const failure of screened.failures) record(failure);
        await signatures.add(screened);
        const leafHash = resultTree.observeResult(event);
        for (const failure of storeCheck?.observeResult(event, leafHash) ?? []) record(failure);
      }
      if (event.type === CHECKPOINT_ISSUED && event.stream === RESULT_LOG_STREAM) for (const failure of resultTree.observeCheckpoint(event)) record(failure);
      // Only chained streams are remembered: most streams (a payment stream per call) have no rule.
      const buffered = chained.get(event.stream);
      if (buffered) buffered.push(event);
      else if (rules.length > 0 && rules.some((r) => r.appliesTo(event.stream))) {
        chained.set(event.stream, [event]);
        rulesOf.set(event.stream, rules.filter((r) => r.appliesTo(event.stream)));
      }
      if (options.onProgress && events % progressEvery === 0) options.onProgress(events, event.position);
    }
  } catch (err) {
    // A log that cannot be read to its end is itself a failure (CorruptLogError names the spot).
    record({ kind: 'log-unreadable', stream: '$all', position: lastPosition, message: (err as Error).message });
  }

  await signatures.drain();
  for (const failure of storeCheck?.finish() ?? []) record(failure);

  for (const [stream, streamEvents] of chained) {
    for (const rule of rulesOf.get(stream) ?? []) {
      let found: AuditFailure[];
      try {
        found = rule.check(streamEvents);
      } catch (err) {
        found = [{ kind: `chain:${rule.name}`, stream, message: `the rule threw: ${(err as Error).message}` }];
      }
      for (const failure of found) record(failure);
    }
  }
  options.onProgress?.(events, lastPosition ?? -1n);
  return {
    events,
    streams: progress.streams,
    unfinishedPayments: unfinishedPayments(progress, unfinished),
    results,
    chains: chained.size,
    checkpoints: resultTree.checkpoints,
    ...(storeCheck ? { resultStoreChecked: storeCheck.checked, resultStoreDigestRuns: storeCheck.digestRunsChecked } : {}),
    lastPosition,
    failureCount,
    failuresByKind,
    failures: failures.sort((a, b) => (a.position ?? -1n) < (b.position ?? -1n) ? -1 : (a.position ?? -1n) > (b.position ?? -1n) ? 1 : 0),
    ok: failureCount === 0,
  };
}

/** At most this many unfinished payment streams are named (all are counted). */
const UNFINISHED_NAMES_KEPT = 10_000;

function unfinishedPayments(progress: StreamProgress, names: Map<string, string>): AuditReport['unfinishedPayments'] {
  let notSettled = 0;
  let notSigned = 0;
  for (const steps of progress.allSagaSteps()) {
    if (steps === 0) continue;
    const step = unfinishedStep(steps);
    if (step === 'not-settled') notSettled++;
    else if (step === 'not-signed') notSigned++;
  }
  const notSignedStreams = [...names].filter(([key]) => unfinishedStep(progress.sagaSteps(key)) === 'not-signed').map(([, name]) => name);
  return { notSettled, notSigned, notSignedStreams: notSignedStreams.sort() };
}

const BATCH = 256;

/**
 * Digests and signatures to verify, sent in batches; at most `parallelism` batches in flight, so
 * the records waiting for a thread stay bounded however long the log.
 */
class SignatureBatches {
  private batch: ScreenedResult[] = [];
  private readonly inFlight: Array<Promise<void>> = [];

  constructor(
    private readonly verifier: SignatureVerifier,
    private readonly record: (failure: AuditFailure) => void,
  ) {}

  async add(screened: ScreenedResult): Promise<void> {
    if (!screened.job) return;
    this.batch.push(screened);
    if (this.batch.length < BATCH) return;
    this.send();
    if (this.inFlight.length >= this.verifier.parallelism) await this.inFlight.shift();
  }

  async drain(): Promise<void> {
    this.send();
    while (this.inFlight.length > 0) await this.inFlight.shift();
  }

  private send(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    const jobs = batch.map((s) => s.job!);
    this.inFlight.push(
      this.verifier.verify(jobs).then(
        (verdicts) => verdicts.forEach((verdict, i) => verdictFailures(batch[i]!, verdict).forEach(this.record)),
        (err: Error) => this.record({ kind: 'result-signature', stream: batch[0]!.where.stream, position: batch[0]!.where.position, message: `verification failed to run: ${err.message}` }),
      ),
    );
  }
}
