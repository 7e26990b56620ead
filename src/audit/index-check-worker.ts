import { parentPort, workerData } from 'node:worker_threads';
import { checkIndexAgainstLog } from '../events/file-log/index-check.ts';

/** The index check on a thread of its own, beside the audit: the report, or the reason it could not run. */
checkIndexAgainstLog(workerData as string).then(
  (report) => parentPort!.postMessage({ report }),
  (err: unknown) => parentPort!.postMessage({ error: (err as Error).message }),
);
