import { Worker } from 'node:worker_threads';
import { workerScript } from '../../kernel/worker-script.ts';
import type { RecoverPublicKey } from './libsecp256k1.ts';
import { FAILED_RECOVERY, PUBLIC_KEY_BYTES, REQUEST_BYTES } from './recovery-wire.ts';

interface Request {
  signature64: Uint8Array;
  recid: number;
  digest: Uint8Array;
  resolve(publicKey: Uint8Array | undefined): void;
}

export interface RecoveryThreadOptions {
  /** Starts the thread (tests give one that fails). Default: recovery-worker.ts. */
  startWorker?: () => Worker;
  /** The thread ends after this long without a batch, and starts again when calls come together. Default 30 s. */
  idleMs?: number;
}

/**
 * secp256k1 public-key recovery, the largest single cost of a paid call, done on a thread of its
 * own when paid calls come together. The service is one process (the file log has one writer),
 * so its event loop bounds how many calls a machine serves. A recovery handed over in a batch
 * costs the loop a few us instead of about 60, and the batch runs on whichever core is free.
 * With every thread on one core it still costs less CPU: the recovery costs the same on the
 * thread, but the loop's own work runs cheaper when libsecp256k1's tables (about a megabyte) no
 * longer pass through the cache between every two calls (docs/benchmarks.md, paid call).
 *
 * Requests made in one turn of the event loop go together at the end of it. A request alone,
 * with no batch in flight, is recovered where it is: a hand-over would add two thread wake-ups
 * to its latency and save nothing. Until the thread is up, and for good once it has failed,
 * requests are recovered on the loop; a batch in flight when the thread fails is recovered there
 * too, so a failure of the thread loses no call and answers no call wrongly.
 */
export class RecoveryThread {
  private queued: Request[] = [];
  private readonly inFlight: Request[][] = [];
  private worker: Worker | undefined;
  private state: 'stopped' | 'starting' | 'ready' | 'failed' | 'closed' = 'stopped';
  private idleTimer: NodeJS.Timeout | undefined;
  /** How many requests each side answered: what the tests and the benchmark look at. */
  readonly answered = { onThread: 0, onLoop: 0 };

  constructor(
    private readonly recoverHere: RecoverPublicKey,
    private readonly options: RecoveryThreadOptions = {},
  ) {}

  /** The public key, or undefined when the signature does not recover. */
  recover(signature64: Uint8Array, recid: number, digest: Uint8Array): Promise<Uint8Array | undefined> {
    return new Promise((resolve) => {
      if (this.queued.push({ signature64, recid, digest, resolve }) === 1) setImmediate(() => this.flush());
    });
  }

  /** Ends the thread; requests from now on are recovered on the loop. */
  async close(): Promise<void> {
    this.state = 'closed';
    await this.stop();
  }

  private flush(): void {
    const batch = this.queued;
    this.queued = [];
    if (this.state !== 'ready' || (batch.length === 1 && this.inFlight.length === 0)) {
      if (this.state === 'stopped' && batch.length > 1) this.start();
      this.recoverOnLoop(batch);
      return;
    }
    const requests = new Uint8Array(batch.length * REQUEST_BYTES);
    for (let i = 0; i < batch.length; i++) {
      const { signature64, recid, digest } = batch[i]!;
      const at = i * REQUEST_BYTES;
      requests.set(signature64, at);
      requests[at + 64] = recid;
      requests.set(digest, at + 65);
    }
    clearTimeout(this.idleTimer);
    // The thread keeps the process alive only while it holds requests.
    if (this.inFlight.push(batch) === 1) this.worker!.ref();
    this.worker!.postMessage(requests.buffer, [requests.buffer]);
  }

  private start(): void {
    this.state = 'starting';
    const worker = this.options.startWorker?.() ?? new Worker(workerScript(import.meta.url, 'recovery-worker'));
    this.worker = worker;
    worker.unref();
    worker.once('online', () => {
      if (this.worker === worker && this.state === 'starting') this.state = 'ready';
    });
    worker.on('message', (answers: ArrayBuffer) => {
      if (this.worker === worker) this.answer(new Uint8Array(answers));
    });
    worker.once('error', () => this.lose(worker));
    worker.once('exit', () => this.lose(worker));
  }

  private answer(answers: Uint8Array): void {
    const batch = this.inFlight.shift();
    if (!batch) return;
    if (this.inFlight.length === 0) {
      this.worker!.unref();
      this.idleTimer = setTimeout(() => void this.stop(), this.options.idleMs ?? 30_000).unref();
    }
    this.answered.onThread += batch.length;
    for (let i = 0; i < batch.length; i++) {
      const publicKey = answers.subarray(i * PUBLIC_KEY_BYTES, (i + 1) * PUBLIC_KEY_BYTES);
      batch[i]!.resolve(publicKey[0] === FAILED_RECOVERY[0] ? undefined : publicKey);
    }
  }

  /** The thread ended by itself (a crash, an exit): its batches are recovered on the loop, and so is everything after. */
  private lose(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    if (this.state !== 'closed') this.state = 'failed';
    for (const batch of this.inFlight.splice(0)) this.recoverOnLoop(batch);
  }

  /** Ends the thread once its batches are answered (on the loop, should it end first). */
  private async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    if (this.state === 'ready' || this.state === 'starting') this.state = 'stopped';
    for (const batch of this.inFlight.splice(0)) this.recoverOnLoop(batch);
    await worker.terminate();
  }

  private recoverOnLoop(batch: Request[]): void {
    this.answered.onLoop += batch.length;
    for (const request of batch) {
      let publicKey: Uint8Array | undefined;
      try {
        publicKey = this.recoverHere(request.signature64, request.recid, request.digest);
      } catch {
        publicKey = undefined;
      }
      request.resolve(publicKey);
    }
  }
}
