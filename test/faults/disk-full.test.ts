import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRules } from '../../src/catalog/index.ts';
import { auditEventLog } from '../../src/audit/audit.ts';
import { loadSettings, type Settings } from '../../src/config.ts';
import { openEventStore, openEventStoreForReading } from '../../src/events/open-store.ts';
import type { EventStore } from '../../src/events/port.ts';
import { createLogger } from '../../src/logger.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { TEST_SECRET } from '../support/service.ts';
import { mountSmallDisk } from '../support/small-disk.ts';
import { fetchQuote, signPayment, type HandMadePayment } from '../support/x402-payments.ts';

/**
 * A real full disk: a 2 MiB tmpfs this test mounts (as root) for the data directory. Where the
 * machine does not allow mounting (not root, no tmpfs), the test is skipped and says why.
 */
const disk = mountSmallDisk('disk-full', '2m');

describe.skipIf(!disk.mounted)('a full disk is an outage that ends by itself', () => {
  let settings: Settings;
  let store: EventStore;
  let service: RunningService;
  const body = (i: number) => JSON.stringify({ kind: 'disk-test', claim: { i, pad: 'p'.repeat(600) } });
  const post = (payment: HandMadePayment | undefined, i: number) =>
    fetch(`${service.url}/v1/veritrack/attest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(payment ? { 'PAYMENT-SIGNATURE': payment.header } : {}) },
      body: body(i),
    });

  beforeAll(async () => {
    settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(disk.path, 'data'), LOG_LEVEL: 'silent', ATTESTATION_SECRET: TEST_SECRET });
    store = await openEventStore(settings, { info: () => {}, warn: () => {}, error: () => {} });
    service = await startService(settings, store, createLogger(settings));
  });
  afterAll(async () => {
    await service?.close();
    await store?.close();
    disk.remove();
  });

  it('appends fail with 503 and Retry-After, readiness says why, and the log recovers when space returns, losing and duplicating nothing', async () => {
    const answered: Array<{ payment: HandMadePayment; i: number; text: string }> = [];
    const quote = await fetchQuote(`${service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(0) });
    for (let i = 0; i < 5; i++) {
      const payment = await signPayment(quote);
      const res = await post(payment, i);
      expect(res.status).toBe(200);
      answered.push({ payment, i, text: await res.text() });
    }

    const filler = disk.fill();
    const refusedPayment = await signPayment(quote);
    let failed: Response | undefined;
    for (let i = 100; i < 140 && !failed; i++) {
      const res = await post(await signPayment(quote), i);
      if (res.status === 503) failed = res;
    }
    expect(failed?.status).toBe(503);
    expect(failed!.headers.get('retry-after')).toBeTruthy();
    const ready = await fetch(`${service.url}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { reason: string }).reason).toMatch(/cannot be written/);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    // While the disk is full nobody is quoted a call that cannot be recorded.
    expect((await post(undefined, 1)).status).toBe(503);

    // Space comes back: no restart, the log takes appends again.
    unlinkSync(filler);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (await fetch(`${service.url}/ready`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
    const after = await post(refusedPayment, 999);
    expect(after.status).toBe(200);

    // Every acknowledged result replays byte for byte with its original payment.
    for (const { payment, i, text } of answered) expect(await (await post(payment, i)).text()).toBe(text);
    const reader = await openEventStoreForReading({ DATA_DIR: settings.DATA_DIR }, { info: () => {}, warn: () => {}, error: () => {} });
    try {
      const report = await auditEventLog({ store: reader, keyring: createKeyring(TEST_SECRET), chainRules: auditRules });
      expect(report.failures).toEqual([]);
      expect(report.results).toBeGreaterThanOrEqual(answered.length + 1);
    } finally {
      await reader.close();
    }
  }, 60_000);
});
