import { Worker } from 'node:worker_threads';
import { DomainRefusal } from '../decider.ts';
import type { EngineJob, EngineReply, ThrownByEngine } from './protocol.ts';
import type { CanonicalRecord } from '../../signing/seal.ts';
import type { RecordText } from '../record-text.ts';
import { workerScript } from '../worker-script.ts';
import type { Settings } from '../../config.ts';
import type { Refusal } from '../refusal.ts';
import { UnavailableNowError } from '../unavailable.ts';

/**
 * A bounded pool of threads that run the engines whose worst inputs take seconds or hundreds of
 * MB (document conversion, code review), so that such a call holds neither the event loop nor
 * the process's heap: every other call goes on while it runs, and an input that needs more than
 * the thread's heap, or more than a job's time, ends that thread, not the service.
 */
export interface EngineThreadOptions {
  threads: number;
  /** Calls that may wait for a thread; beyond, `saturated()` and the route refuses before its quote. */
  queue: number;
  /** Old-generation heap of each thread, in MB. */
  heapMb: number;
  /** How long one job may hold its thread; past it the thread is ended, so that no input or loop holds it for good. */
  jobTimeoutMs: number;
  /** Idle threads are ended after this, so an idle service holds none. */
  idleMs?: number;
}

/**
 * The engine needed more than a thread's heap, on a thread that had run nothing before (a job
 * that runs out on a thread holding other engines' modules is run again on a fresh one), so the
 * verdict follows the input, not the thread's history: a retry meets it again.
 */
export class EngineOutOfMemoryError extends Error {
  constructor(readonly heapMb: number) {
    super(`the engine needed more than the ${heapMb} MB heap of its thread`);
    this.name = 'EngineOutOfMemoryError';
  }
}

/**
 * The engine held its thread past the job's time limit and the thread was ended. How long a job
 * takes depends on the machine's load as well as on the input, so this is no verdict on the input.
 */
export class EngineTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the engine ran past the ${timeoutMs} ms time limit of a job on its thread`);
    this.name = 'EngineTimeoutError';
  }
}

const threadEntry = (): URL => workerScript(import.meta.url, 'engine-thread');

/** What a thread answered for a job: the engine's value, and its record's canonical form and JSON text when the job asked for them. */
interface Answer {
  value: unknown;
  canonical?: CanonicalRecord;
  recordText?: RecordText;
}

interface Pending {
  job: EngineJob;
  resolve(answer: Answer): void;
  reject(err: unknown): void;
  /** Out of heap on a thread that had run other jobs: run again on a thread that has run nothing. */
  onFreshThread?: true;
}

interface Thread {
  worker: Worker;
  running?: Pending;
  /** Ends the thread should its running job outlast the time limit. */
  deadline?: NodeJS.Timeout;
  /** Jobs given to it so far: the modules they loaded stay in its heap. */
  jobs: number;
}

function rebuilt(thrown: ThrownByEngine): Error {
  if (thrown.refusal) return new DomainRefusal(thrown.refusal.status, thrown.refusal.error, thrown.message, thrown.refusal.outcome);
  const err = new Error(thrown.message);
  err.name = thrown.name;
  if (thrown.stack) err.stack = thrown.stack;
  return err;
}

export class EngineThreads {
  private readonly threads = new Set<Thread>();
  private readonly waiting: Pending[] = [];
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: EngineThreadOptions) {}

  saturated(): boolean {
    return this.busy() >= this.options.threads && this.waiting.length >= this.options.queue;
  }

  /** Calls `exportName` of `module` with `args` on a thread (arguments and value as structured clones). */
  async run<T>(module: URL, exportName: string, args: unknown[]): Promise<T> {
    return (await this.queued({ id: this.nextId++, module: module.href, exportName, args })).value as T;
  }

  /**
   * Like run, for an engine that answers a command's result ({ record, ... }): the thread makes
   * the RFC 8785 bytes of the record and their SHA-256, and the record's JSON text, off the event
   * loop, and answers them in place of the record (`value` is the result without it).
   */
  async runForRecord<T>(module: URL, exportName: string, args: unknown[]): Promise<{ value: Omit<T, 'record'>; canonical: CanonicalRecord; recordText: RecordText }> {
    const { value, canonical, recordText } = await this.queued({ id: this.nextId++, module: module.href, exportName, args, canonicalRecord: true });
    if (!canonical || !recordText) throw new Error(`the engine thread answered ${exportName} without its record's canonical form and JSON text`);
    return { value: value as Omit<T, 'record'>, canonical, recordText };
  }

  private queued(job: EngineJob): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  /** Ends every thread; calls still running or waiting are rejected. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    for (const pending of this.waiting.splice(0)) pending.reject(new Error('the engine threads were closed'));
    await Promise.all([...this.threads].map((thread) => this.end(thread, new Error('the engine threads were closed'))));
  }

  private busy(): number {
    let busy = 0;
    for (const thread of this.threads) if (thread.running) busy++;
    return busy;
  }

  private dispatch(): void {
    clearTimeout(this.idleTimer);
    while (this.waiting.length > 0) {
      const thread = this.threadFor(this.waiting[0]!);
      if (!thread) return;
      const pending = this.waiting.shift()!;
      thread.running = pending;
      thread.jobs++;
      thread.worker.ref();
      thread.worker.postMessage(pending.job);
      thread.deadline = setTimeout(() => this.timedOut(thread, pending), this.options.jobTimeoutMs);
      // The running worker is what keeps the process alive for the job, not its deadline.
      thread.deadline.unref();
    }
    if (this.busy() === 0 && this.threads.size > 0) {
      this.idleTimer = setTimeout(() => void this.close(), this.options.idleMs ?? 30_000);
      this.idleTimer.unref();
    }
  }

  /** An idle thread for the job, or a new one when there is room (or room made by ending an idle thread, for a job that needs a fresh one). */
  private threadFor(pending: Pending): Thread | undefined {
    const idle = [...this.threads].filter((t) => !t.running);
    if (!pending.onFreshThread) return idle[0] ?? (this.threads.size < this.options.threads ? this.started() : undefined);
    const fresh = idle.find((t) => t.jobs === 0);
    if (fresh) return fresh;
    if (this.threads.size >= this.options.threads) {
      if (!idle[0]) return undefined;
      void this.end(idle[0], new Error('ended to make room for a fresh thread'));
    }
    return this.started();
  }

  private started(): Thread {
    const thread: Thread = { jobs: 0, worker: new Worker(threadEntry(), { resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb } }) };
    this.threads.add(thread);
    thread.worker.on('message', (reply: EngineReply) => this.answered(thread, reply));
    thread.worker.on('error', (err: Error & { code?: string }) => {
      const lost = err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new EngineOutOfMemoryError(this.options.heapMb) : new Error(`an engine thread failed: ${err.message}`, { cause: err });
      this.lose(thread, lost);
    });
    thread.worker.on('exit', (code) => this.lose(thread, new Error(`an engine thread exited (code ${code})`)));
    return thread;
  }

  private answered(thread: Thread, reply: EngineReply): void {
    const pending = thread.running;
    if (!pending || pending.job.id !== reply.id) return;
    this.finished(thread);
    thread.worker.unref();
    if (reply.ok) pending.resolve({ value: reply.value, ...(reply.canonical ? { canonical: reply.canonical } : {}), ...(reply.recordText ? { recordText: reply.recordText } : {}) });
    else pending.reject(rebuilt(reply.thrown));
    this.dispatch();
  }

  /**
   * A thread that ended on its own: its call is rejected (or, out of heap after other jobs,
   * queued first to run again on a fresh thread), and the calls waiting get a new thread.
   */
  private lose(thread: Thread, err: Error): void {
    if (!this.threads.delete(thread)) return;
    const pending = thread.running;
    this.finished(thread);
    if (pending && err instanceof EngineOutOfMemoryError && thread.jobs > 1 && !pending.onFreshThread) this.waiting.unshift(Object.assign({}, pending, { onFreshThread: true }));
    else pending?.reject(err);
    this.dispatch();
  }

  /**
   * A job past its time limit: its thread is ended (a loop never yields, so nothing less stops
   * it) and forgotten at once, so that whatever it might still post answers nothing, and the calls
   * waiting get a new thread.
   */
  private timedOut(thread: Thread, pending: Pending): void {
    if (thread.running !== pending) return;
    void this.end(thread, new EngineTimeoutError(this.options.jobTimeoutMs));
    this.dispatch();
  }

  private async end(thread: Thread, err: Error): Promise<void> {
    this.threads.delete(thread);
    const pending = thread.running;
    this.finished(thread);
    pending?.reject(err);
    await thread.worker.terminate();
  }

  /** The thread runs nothing any more: its job's deadline goes with it. */
  private finished(thread: Thread): void {
    clearTimeout(thread.deadline);
    thread.deadline = undefined;
    thread.running = undefined;
  }
}

type ThreadSettings = Pick<Settings, 'ENGINE_THREADS' | 'ENGINE_QUEUE' | 'ENGINE_HEAP_MB' | 'ENGINE_JOB_TIMEOUT_MS'>;

const shared = new Map<string, EngineThreads>();

/** The process's pool for these settings (one per distinct settings, so tests with their own get their own). */
export function engineThreadsFor(settings: ThreadSettings): EngineThreads {
  const key = `${settings.ENGINE_THREADS}/${settings.ENGINE_QUEUE}/${settings.ENGINE_HEAP_MB}/${settings.ENGINE_JOB_TIMEOUT_MS}`;
  let pool = shared.get(key);
  if (!pool) {
    const options = { threads: settings.ENGINE_THREADS, queue: settings.ENGINE_QUEUE, heapMb: settings.ENGINE_HEAP_MB, jobTimeoutMs: settings.ENGINE_JOB_TIMEOUT_MS };
    shared.set(key, (pool = new EngineThreads(options)));
  }
  return pool;
}

/** Before the quote: every engine thread busy and the queue full. */
export function engineThreadsBusy(settings: ThreadSettings): Refusal | undefined {
  if (!engineThreadsFor(settings).saturated()) return undefined;
  return { status: 503, error: 'engine_busy', message: 'every engine thread is busy and the queue is full; nothing was charged, retry shortly', retryAfterSeconds: 2 };
}

/** Runs an engine on the pool, a thread's limits answered as a paid call answers them (answeringThreadLimits). */
export function runOnEngineThread<T>(settings: ThreadSettings, module: URL, exportName: string, args: unknown[]): Promise<T> {
  return answeringThreadLimits(engineThreadsFor(settings).run<T>(module, exportName, args));
}

/** runOnEngineThread for an engine that answers a command's result: with its record's canonical form and JSON text (EngineThreads.runForRecord). */
export function runRecordOnEngineThread<T>(settings: ThreadSettings, module: URL, exportName: string, args: unknown[]): Promise<{ value: Omit<T, 'record'>; canonical: CanonicalRecord; recordText: RecordText }> {
  return answeringThreadLimits(engineThreadsFor(settings).runForRecord<T>(module, exportName, args));
}

/**
 * An input that needs more than a thread's heap is a DomainRefusal (422 INVALID-INPUT), decided
 * by the input as any other: the same input meets it again. A job past the time limit is not:
 * how long it runs depends on the machine's load too, so it is 503 engine_timeout, to retry.
 */
async function answeringThreadLimits<T>(running: Promise<T>): Promise<T> {
  try {
    return await running;
  } catch (err) {
    if (err instanceof EngineOutOfMemoryError)
      throw new DomainRefusal(422, 'input_too_complex', `this input needs more than the ${err.heapMb} MB heap of an engine thread (ENGINE_HEAP_MB): split it or make it simpler`, 'INVALID-INPUT');
    if (err instanceof EngineTimeoutError)
      throw new UnavailableNowError('engine_timeout', `the engine was stopped at its time limit, ENGINE_JOB_TIMEOUT_MS of ${err.timeoutMs} ms; if this repeats, the input costs too much to run: split it or make it simpler`);
    throw err;
  }
}
