import net from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { OcrPool } from './ocr-pool.ts';
import { invoicePng } from './invoice-image.test-support.ts';

describe('OCR runs offline', () => {
  const pool = new OcrPool(1, 0);
  afterAll(() => pool.close());

  it('recognises an image with no socket opened and no fetch made: the trained data comes from the installed package', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const { text, confidence } = await pool.recognize(invoicePng());
    expect(text).toContain('INV-2026-0042');
    expect(confidence).toBeGreaterThan(60);
    expect(connect).not.toHaveBeenCalled();
    expect(fetchSpy).not.toHaveBeenCalled();
    connect.mockRestore();
    fetchSpy.mockRestore();
  }, 60_000);

  it('says it is saturated while every worker is busy and the queue is full, so the route refuses before the quote', async () => {
    const small = new OcrPool(1, 0);
    expect(small.saturated()).toBe(false);
    const running = small.recognize(invoicePng(['x']));
    await new Promise((r) => setTimeout(r, 0));
    expect(small.saturated()).toBe(true);
    await running;
    expect(small.saturated()).toBe(false);
    await small.close();
  }, 60_000);
});
