import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Worker } from 'tesseract.js';
import { once } from '../../../kernel/once.ts';
import { sha256Hex } from '../../../signing/hash.ts';

const requireHere = createRequire(import.meta.url);
const TRAINED_DATA = requireHere.resolve('@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz');

/**
 * What did the reading: recorded in every receipt, so the same versions give the same text.
 * Worked out on the first reading, not at start: hashing the trained data reads 3 MB.
 */
export const ocrEngine = once(() => ({
  name: 'tesseract.js',
  version: (requireHere('tesseract.js/package.json') as { version: string }).version,
  core: (requireHere('tesseract.js-core/package.json') as { version: string }).version,
  language: 'eng',
  engine_mode: 'LSTM only',
  trained_data: '@tesseract.js-data/eng 4.0.0_best_int/eng.traineddata.gz',
  trained_data_sha256: sha256Hex(readFileSync(TRAINED_DATA)),
}));

export interface OcrText {
  text: string;
  /** Tesseract's mean word confidence, 0-100. */
  confidence: number;
}

/** Workers idle this long are terminated, so an idle service holds no OCR threads. */
const IDLE_MS = 5_000;

/** The engine could not decode the image (damaged, or a kind it does not read): the caller's file, not the service. */
export class UnreadableImageError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnreadableImageError';
  }
}

/** What leptonica answers, through tesseract.js, for an image it cannot decode. */
const DECODE_FAILURE = /Error attempting to read image/;

/** What the pool asks of a worker: one reading at a time, and an end. */
export type OcrWorker = {
  recognize(image: Buffer): Promise<{ data: { text: string; confidence: number } }>;
  terminate(): Promise<unknown>;
};

/** A tesseract worker thread for English, LSTM only, its trained data read from its registry package. */
async function startTesseractWorker(): Promise<OcrWorker> {
  // tesseract.js loads with the first worker, not at every start of the service.
  const { createWorker, OEM } = await import('tesseract.js');
  // Without an errorHandler, tesseract.js throws a failed job's message from its message
  // listener as well as rejecting the job: an uncaught exception that ended the process.
  const worker: Worker = await createWorker('eng', OEM.LSTM_ONLY, { langPath: dirname(TRAINED_DATA), cacheMethod: 'none', gzip: true, errorHandler: () => {} });
  return worker;
}

/**
 * A bounded pool of tesseract workers (each its own thread, off the event loop). The English
 * trained data is read from its registry package: no cache, no download, ever. A call waits for
 * a free worker; `saturated` tells the route to refuse before the quote rather than queue more.
 */
export class OcrPool {
  private readonly idle: OcrWorker[] = [];
  private busy = 0;
  private readonly waiting: Array<{ resolve(worker: OcrWorker): void; reject(err: unknown): void }> = [];
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly size: number,
    private readonly queue: number,
    private readonly startWorker: () => Promise<OcrWorker> = startTesseractWorker,
  ) {}

  saturated(): boolean {
    return this.busy >= this.size && this.waiting.length >= this.queue;
  }

  /** The image's text; rejects with UnreadableImageError when the engine cannot decode it. */
  async recognize(image: Buffer): Promise<OcrText> {
    const worker = await this.acquire();
    let data: { text: string; confidence: number };
    try {
      ({ data } = await worker.recognize(image));
    } catch (err) {
      // tesseract.js rejects with the worker's message, a string.
      const message = err instanceof Error ? err.message : String(err);
      if (DECODE_FAILURE.test(message)) {
        this.release(worker);
        throw new UnreadableImageError('the OCR engine could not decode the image: it is damaged, or its encoding is one the engine does not read');
      }
      // Anything else may have left the worker broken: it is not used again.
      this.discard(worker);
      throw new Error(`OCR failed: ${message}`, { cause: err });
    }
    this.release(worker);
    return { text: data.text, confidence: Math.round(data.confidence * 100) / 100 };
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }

  private async acquire(): Promise<OcrWorker> {
    clearTimeout(this.idleTimer);
    const ready = this.idle.pop();
    if (ready) return this.take(ready);
    if (this.busy + this.idle.length < this.size) {
      this.busy++;
      try {
        return await this.startWorker();
      } catch (err) {
        this.busy--;
        // The slot is free again: a caller waiting for it tries to start its own worker, rather
        // than wait for a release that no running worker will make.
        this.handOverFreedSlot();
        throw err;
      }
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private take(worker: OcrWorker): OcrWorker {
    this.busy++;
    return worker;
  }

  /** Terminates a worker that failed; a caller waiting for one gets a new worker. */
  private discard(worker: OcrWorker): void {
    this.busy--;
    void worker.terminate().catch(() => undefined);
    this.handOverFreedSlot();
  }

  private handOverFreedSlot(): void {
    const next = this.waiting.shift();
    if (next) this.acquire().then(next.resolve, next.reject);
  }

  private release(worker: OcrWorker): void {
    this.busy--;
    const next = this.waiting.shift();
    if (next) {
      next.resolve(this.take(worker));
      return;
    }
    this.idle.push(worker);
    this.idleTimer = setTimeout(() => void this.close(), IDLE_MS);
    this.idleTimer.unref();
  }
}

let shared: OcrPool | undefined;
/** The process's one pool, sized by the first settings that ask for it. */
export function ocrPool(size: number, queue: number): OcrPool {
  shared ??= new OcrPool(size, queue);
  return shared;
}
