import { parentPort } from 'node:worker_threads';
import { verifySignatureJob, type SignatureJob } from './signature-job.ts';

/** A worker thread of the signature pool: verifies batches of jobs and answers in order. */
parentPort!.on('message', (message: { id: number; jobs: SignatureJob[] }) => {
  parentPort!.postMessage({ id: message.id, verdicts: message.jobs.map(verifySignatureJob) });
});
