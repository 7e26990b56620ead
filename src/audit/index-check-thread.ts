import { Worker } from 'node:worker_threads';
import type { IndexCheckReport } from '../events/file-log/index-check.ts';
import { workerScript } from '../kernel/worker-script.ts';

/**
 * Checks the file log's index on disk against its segments on a worker thread, so the check
 * runs beside the audit's replay (whose main thread mostly waits for the verifying threads)
 * instead of after it. Undefined when the directory has no index.
 */
export function checkIndexOnThread(logDir: string): Promise<IndexCheckReport | undefined> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerScript(import.meta.url, 'index-check-worker'), { workerData: logDir });
    worker.once('message', (answer: { report?: IndexCheckReport; error?: string }) => {
      if (answer.error !== undefined) reject(new Error(answer.error));
      else resolve(answer.report);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the index check's thread stopped (exit ${code}) before it answered`)));
  });
}
