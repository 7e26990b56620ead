import { parentPort } from 'node:worker_threads';
import { DomainRefusal } from '../decider.ts';
import { canonicalRecord, ownedBytes } from '../../signing/seal.ts';
import type { EngineJob, EngineReply, ThrownByEngine } from './protocol.ts';

/**
 * One engine thread: runs the jobs the pool sends, one at a time, each an exported function of a
 * module of the service called with its arguments. Loaded modules stay loaded, so only the
 * thread's first job of an operation pays for its libraries.
 */
function thrown(err: unknown): ThrownByEngine {
  if (err instanceof DomainRefusal) return { name: err.name, message: err.message, refusal: { status: err.status, error: err.error, ...(err.outcome ? { outcome: err.outcome } : {}) } };
  if (err instanceof Error) return { name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
  return { name: 'Error', message: String(err) };
}

async function run(job: EngineJob): Promise<EngineReply> {
  try {
    const module = (await import(job.module)) as Record<string, unknown>;
    const engine = module[job.exportName];
    if (typeof engine !== 'function') throw new Error(`${job.module} exports no function ${job.exportName}`);
    const value: unknown = await (engine as (...args: unknown[]) => unknown)(...job.args);
    if (!job.canonicalRecord) return { id: job.id, ok: true, value };
    if (value === null || typeof value !== 'object' || !('record' in value) || value.record === null || typeof value.record !== 'object') throw new Error(`${job.exportName} answered no record to canonicalise`);
    const { record, ...rest } = value;
    // JSON.stringify's own text: what the event log and the HTTP answer would write of the record.
    const recordText = { json: ownedBytes(Buffer.from(JSON.stringify(record), 'utf8')), keys: Object.keys(record) };
    return { id: job.id, ok: true, value: rest, canonical: canonicalRecord(record), recordText };
  } catch (err) {
    return { id: job.id, ok: false, thrown: thrown(err) };
  }
}

if (!parentPort) throw new Error('engine-thread.ts runs as a worker thread of EngineThreads');
const port = parentPort;
/** The canonical bytes and the JSON text are moved to the main thread, not copied: each is as large as the record. */
function moved(reply: EngineReply): ArrayBuffer[] {
  if (!reply.ok) return [];
  const buffers = [reply.canonical?.bytes.buffer, reply.recordText?.json.buffer];
  return buffers.filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer);
}

port.on('message', (job: EngineJob) => {
  void run(job).then((reply) => port.postMessage(reply, moved(reply)));
});
