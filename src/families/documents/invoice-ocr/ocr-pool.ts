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

/**
 * A bounded pool of tesseract workers (each its own thread, off the event loop). The English
 * trained data is read from its registry package: no cache, no download, ever. A call waits for
 * a free worker; `saturated` tells the route to refuse before the quote rather than queue more.
 */
export class OcrPool {
  private readonly idle: Worker[] = [];
  private busy = 0;
  private readonly waiting: Array<(w: Worker) => void> = [];
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly size: number,
    private readonly queue: number,
  ) {}

  saturated(): boolean {
    return this.busy >= this.size && this.waiting.length >= this.queue;
  }

  async recognize(image: Buffer): Promise<OcrText> {
    const worker = await this.acquire();
    try {
      const { data } = await worker.recognize(image);
      return { text: data.text, confidence: Math.round(data.confidence * 100) / 100 };
    } finally {
      this.release(worker);
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }

  private async acquire(): Promise<Worker> {
    clearTimeout(this.idleTimer);
    const ready = this.idle.pop();
    if (ready) return this.take(ready);
    if (this.busy + this.idle.length < this.size) {
      this.busy++;
      try {
        // tesseract.js loads with the first worker, not at every start of the service.
        const { createWorker, OEM } = await import('tesseract.js');
        return await createWorker('eng', OEM.LSTM_ONLY, { langPath: dirname(TRAINED_DATA), cacheMethod: 'none', gzip: true });
      } catch (err) {
        this.busy--;
        throw err;
      }
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private take(worker: Worker): Worker {
    this.busy++;
    return worker;
  }

  private release(worker: Worker): void {
    this.busy--;
    const next = this.waiting.shift();
    if (next) {
      next(this.take(worker));
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
