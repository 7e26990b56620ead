/**
 * The writes queued in one turn of the event loop, which lmdb-js commits as one transaction on
 * its writer thread. Each put returns the transaction's promise, but lmdb-js begins a new promise
 * whenever its instruction buffer fills, so a long turn hands out several. Every one of them must
 * be awaited: when a commit fails (a full disk), each rejects, and one nobody awaits ends the
 * process as an unhandled rejection.
 */
export class TurnWrites {
  private readonly pending: Array<Promise<unknown>> = [];

  add(write: Promise<unknown>): void {
    if (write !== this.pending.at(-1)) this.pending.push(write);
  }

  /** Resolves once every write of the turn is committed; rejects with the commit's cause when one is not. */
  async committed(): Promise<void> {
    const outcomes = await Promise.allSettled(this.pending);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw await commitFailure(failed.reason);
  }
}

const COMMIT_FAILED = 'Commit failed (see commitError for details)';

type CommitFailure = Error & { commitError: Promise<unknown> };

const isCommitFailure = (reason: unknown): reason is CommitFailure =>
  reason instanceof Error && reason.message === COMMIT_FAILED && (reason as Partial<CommitFailure>).commitError instanceof Promise;

let orphansTolerated = false;
/** The cause promises of orphaned failures: Node reports each as unhandled too, right after. */
const toleratedCauses = new WeakSet<Promise<unknown>>();

/**
 * When a commit fails, lmdb-js (3.x) also rejects promises of its own that no caller holds (a
 * read in the turn of the writes is enough to make one), and Node ends the process for each:
 * the fault test that fills a disk under paid load died this way. The failure reaches the writer
 * through TurnWrites; these copies of it are dropped. Any other unhandled rejection still ends
 * the process, as it would without this listener, unless another listener (a test runner) takes
 * care of it.
 */
export function tolerateOrphanedCommitFailures(): void {
  if (orphansTolerated) return;
  orphansTolerated = true;
  process.on('unhandledRejection', (reason, promise) => {
    if (isCommitFailure(reason)) {
      // Handled now, the cause is still reported in this round of unhandled rejections.
      toleratedCauses.add(reason.commitError);
      reason.commitError.catch(() => {});
      return;
    }
    if (toleratedCauses.has(promise)) return;
    if (process.listenerCount('unhandledRejection') === 1) throw reason;
  });
}

/**
 * lmdb-js rejects a failed commit's writes with "Commit failed (see commitError for details)"
 * and the cause in a promise of its own (`commitError`), which also ends the process unless
 * something handles it: handled here, and its cause (ENOSPC ...) made the error's message.
 */
async function commitFailure(reason: unknown): Promise<Error> {
  if (!isCommitFailure(reason)) return reason instanceof Error ? reason : new Error(String(reason));
  const detail = await reason.commitError.then(
    () => undefined,
    (why: unknown) => why,
  );
  if (!(detail instanceof Error)) return reason;
  return new Error(`LMDB commit failed: ${detail.message}`, { cause: detail });
}
