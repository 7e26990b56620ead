import { monitorEventLoopDelay } from 'node:perf_hooks';
import { availableParallelism } from 'node:os';
import { OcrPool } from '../src/families/documents/invoice-ocr/ocr-pool.ts';
import { invoicePng } from '../src/families/documents/invoice-ocr/invoice-image.test-support.ts';

/**
 * Invoice OCR: pages per second and CPU per page (every thread of the process) on a pool of
 * tesseract worker threads, and the event loop's delay while the pool is saturated: the loop
 * that answers every other route must stay responsive (target: p99 under 50 ms).
 */
const PAGES = 24;

export default async function run(): Promise<void> {
  const image = invoicePng();
  for (const workers of [1, Math.max(1, availableParallelism() - 1)].filter((w, i, all) => all.indexOf(w) === i)) {
    const pool = new OcrPool(workers, PAGES);
    await pool.recognize(image); // the workers' start-up (trained data loaded) is not a page
    const delay = monitorEventLoopDelay({ resolution: 5 });
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    delay.enable();
    await Promise.all(Array.from({ length: PAGES }, () => pool.recognize(image)));
    delay.disable();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    await pool.close();
    console.log(
      `${workers} OCR worker(s), ${PAGES} pages of a 1000 x 480 invoice: ${(PAGES / seconds).toFixed(2)} pages/s, ` +
        `${((used.user + used.system) / 1e3 / PAGES).toFixed(0)} ms CPU a page; event loop delay while saturated: ` +
        `p50 ${(delay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms, max ${(delay.max / 1e6).toFixed(1)} ms (target p99 < 50 ms)`,
    );
  }
}
