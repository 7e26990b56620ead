import { Worker } from 'node:worker_threads';
import { workerScript } from '../kernel/worker-script.ts';
import { verifySignatureJob, type SignatureJob, type SignatureVerdict } from './signature-job.ts';

export interface SignatureVerifier {
  /** Verdicts in the order of the jobs. */
  verify(jobs: SignatureJob[]): Promise<SignatureVerdict[]>;
  /** How many batches may be in flight at once to keep every thread busy. */
  readonly parallelism: number;
  close(): Promise<void>;
}

/** Verifies on the calling thread: for small logs and tests, where starting threads costs more than it saves. */
export const inlineVerifier: SignatureVerifier = {
  verify: async (jobs) => jobs.map(verifySignatureJob),
  parallelism: 1,
  close: async () => {},
};

/** Ed25519 verification spread over worker threads, batch by batch, round robin. */
export function startSignaturePool(threads: number): SignatureVerifier {
  const workers = Array.from({ length: Math.max(1, threads) }, () => new Worker(workerScript(import.meta.url, 'signature-worker')));
  const pending = new Map<number, { resolve(v: SignatureVerdict[]): void; reject(e: Error): void }>();
  for (const worker of workers) {
    worker.on('message', ({ id, verdicts }: { id: number; verdicts: SignatureVerdict[] }) => {
      pending.get(id)?.resolve(verdicts);
      pending.delete(id);
    });
    worker.on('error', (err) => {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    });
  }
  let next = 0;
  return {
    parallelism: workers.length * 2,
    verify(jobs) {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        workers[id % workers.length]!.postMessage({ id, jobs });
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
