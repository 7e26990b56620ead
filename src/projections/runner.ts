import type { EventLogger } from '../events/file-log/logger.ts';
import { stderrLogger } from '../events/file-log/logger.ts';
import type { EventStore, RecordedEvent, Subscription } from '../events/port.ts';
import type { JsonValue } from '../signing/rfc8785.ts';
import type { CheckpointStore } from './checkpoint-store.ts';
import { logEndsBefore } from '../events/log-end.ts';

export type { CheckpointStore, ProjectionCheckpoint } from './checkpoint-store.ts';
export { createFileCheckpointStore, createMemoryCheckpointStore } from './checkpoint-store.ts';

/**
 * A read model folded from the log. `evolve` must be pure and deterministic: the state rebuilt
 * from position zero must equal the state built incrementally. The state is JSON, because it is
 * checkpointed with its position. Bump `version` whenever `evolve` changes meaning: a checkpoint
 * of another version is discarded and the projection rebuilt from zero.
 */
export interface Projection<S extends JsonValue> {
  name: string;
  version: number;
  /** Event types passed to evolve; other events only advance the position. */
  handles: readonly string[];
  initialState: S;
  evolve(state: S, event: RecordedEvent): S;
}

export interface ProjectionRunnerOptions {
  checkpoints: CheckpointStore;
  /**
   * A checkpoint is saved at the first event this long after the last save (and at stop): a start
   * folds at most this much of the log again. Not by a count of events: under a load of thousands
   * of events a second that saved (wrote, synced and renamed a file) several times a second, for
   * nothing a start needs. Default 1,000 ms.
   */
  checkpointIntervalMs?: number;
  log?: EventLogger;
}

export interface ProjectionRunner<S extends JsonValue> {
  readonly name: string;
  state(): S;
  /** The last global position folded in; undefined before the first event. */
  position(): bigint | undefined;
  /** Resolves once every event up to `position` is folded in (for read-your-writes). */
  waitForPosition(position: bigint, options?: { timeoutMs?: number }): Promise<void>;
  /** Drops the state and checkpoint and folds the whole log again from position zero. */
  rebuild(): Promise<void>;
  /** Stops the subscription and saves a final checkpoint. */
  stop(): Promise<void>;
}

interface Waiter {
  position: bigint;
  resolve(): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Runs one projection: loads its checkpoint (or starts from zero on none, an unreadable one,
 * another version, or one past the end of the log), catches up through a catch-up subscription, then follows the log live.
 * Delivery is at least once (a restart resumes from the last checkpoint; EventStoreDB may
 * redeliver after a reconnect), and the runner skips every event at or below the position it
 * has already folded, so each event changes the state exactly once.
 */
export async function startProjection<S extends JsonValue>(
  store: EventStore,
  projection: Projection<S>,
  options: ProjectionRunnerOptions,
): Promise<ProjectionRunner<S>> {
  const log = options.log ?? stderrLogger;
  const intervalMs = options.checkpointIntervalMs ?? 1000;
  let state: S = structuredClone(projection.initialState);
  let position: bigint | undefined;
  let unsaved = 0;
  let lastSave = Date.now();
  let subscription: Subscription | undefined;
  let failure: Error | undefined;
  let generation = 0;
  let saving: Promise<void> = Promise.resolve();
  const waiters = new Set<Waiter>();

  const saved = await options.checkpoints.load(projection.name);
  const { endsBefore: pastTheLog, logEnd } = await logEndsBefore(store, saved?.position);
  if (saved && saved.version === projection.version && !pastTheLog) {
    state = saved.state as S;
    position = saved.position;
  } else if (saved) {
    if (pastTheLog) log.warn({ projection: projection.name, checkpoint: String(saved.position), logEnd: String(logEnd) }, 'projection checkpoint is past the end of the log (one restored from a backup?): rebuilding from position zero');
    else log.info({ projection: projection.name, from: saved.version, to: projection.version }, 'projection version changed: rebuilding from position zero');
    await options.checkpoints.remove(projection.name);
  }

  function settleWaiters(): void {
    for (const waiter of waiters) {
      if (failure) waiter.reject(failure);
      else if (position === undefined || position < waiter.position) continue;
      else waiter.resolve();
      clearTimeout(waiter.timer);
      waiters.delete(waiter);
    }
  }

  function checkpoint(): Promise<void> {
    // Serialised now, written in order: a slow save never records a newer state under an older one.
    const snapshot = { name: projection.name, version: projection.version, position, state: structuredClone(state) };
    unsaved = 0;
    lastSave = Date.now();
    // A failed save (a full disk) costs only a longer fold at the next start: logged, and the
    // next checkpoint tries again (a rejected chain would have refused every later save).
    saving = saving.then(() => options.checkpoints.save(snapshot)).catch((err: Error) => log.warn({ projection: projection.name, error: err.message }, 'projection checkpoint not saved: the next start folds from the last saved one'));
    return saving;
  }

  /** Folds the event at `at` in (evolve for handled types, none for the others). */
  function advance(at: bigint, event: RecordedEvent | undefined): void | Promise<void> {
    if (event) {
      try {
        state = projection.evolve(state, event);
      } catch (err) {
        failure = new Error(`projection ${projection.name} failed on event ${event.id} at position ${event.position}: ${(err as Error).message}`, { cause: err });
        log.error({ projection: projection.name, position: String(event.position) }, failure.message);
        settleWaiters();
        void subscription?.close();
        return;
      }
    }
    position = at;
    unsaved++;
    if (waiters.size > 0) settleWaiters();
    if (Date.now() - lastSave >= intervalMs) return checkpoint();
  }

  function subscribe(): void {
    const mine = ++generation;
    const seen = (at: bigint) => mine !== generation || failure !== undefined || (position !== undefined && at <= position);
    subscription = store.subscribeToAll({
      fromPosition: position,
      // Only the handled types are read; the store passes over the rest by position alone.
      eventTypes: projection.handles,
      onEvent: (event) => (seen(event.position) ? undefined : advance(event.position, event)),
      onPassed: (at) => (seen(at) ? undefined : advance(at, undefined)),
      onError: (err) => {
        if (mine !== generation) return;
        // Resume from what is folded in; anything redelivered is skipped by position.
        log.warn({ projection: projection.name, error: err.message }, 'projection subscription dropped: resubscribing');
        setTimeout(() => {
          if (mine === generation && !failure) subscribe();
        }, 500).unref();
      },
    });
  }

  subscribe();

  return {
    name: projection.name,
    state: () => state,
    position: () => position,
    waitForPosition(target, waitOptions = {}) {
      if (failure) return Promise.reject(failure);
      if (position !== undefined && position >= target) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { position: target, resolve, reject, timer: undefined };
        if (waitOptions.timeoutMs !== undefined) {
          waiter.timer = setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`projection ${projection.name} did not reach position ${target} within ${waitOptions.timeoutMs} ms (at ${String(position)})`));
          }, waitOptions.timeoutMs);
        }
        waiters.add(waiter);
      });
    },
    async rebuild() {
      generation++;
      await subscription?.close();
      await saving;
      await options.checkpoints.remove(projection.name);
      state = structuredClone(projection.initialState);
      position = undefined;
      failure = undefined;
      unsaved = 0;
      subscribe();
    },
    async stop() {
      generation++;
      await subscription?.close();
      if (unsaved > 0 && !failure) await checkpoint();
      await saving;
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error(`projection ${projection.name} stopped`));
      }
      waiters.clear();
    },
  };
}
