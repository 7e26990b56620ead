import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../config.ts';
import { openEventStore } from '../../../events/open-store.ts';
import { createLogger } from '../../../logger.ts';
import { startService } from '../../../service.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { TEST_SECRET } from '../../../../test/support/service.ts';

/** A transcript the bureau audits without any network: a 402 whose quote names an unknown network. */
const transcript = {
  endpoint: { url: 'https://api.example.com/x', method: 'GET' },
  challenge: {
    status: 402,
    headers: {
      'PAYMENT-REQUIRED': Buffer.from(JSON.stringify({ x402Version: 2, resource: { url: 'https://api.example.com/x' }, accepts: [{ scheme: 'exact', network: 'base', amount: '1', asset: '0x0', payTo: '0x0', maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }] })).toString('base64'),
      'Cache-Control': 'no-store',
      'Access-Control-Expose-Headers': '*',
    },
  },
};

let dataDir: string;
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

async function run<T>(use: (url: string) => Promise<T>): Promise<T> {
  const settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ATTESTATION_SECRET: TEST_SECRET });
  const store = await openEventStore(settings, { info: () => {}, warn: () => {}, error: () => {} });
  const service = await startService(settings, store, createLogger(settings));
  try {
    return await use(service.url);
  } finally {
    await service.close();
    await store.close();
  }
}

const corpusOf = async (url: string) => (await (await fetch(`${url}/v1/bureau/corpus`)).json()) as { total: number; anchor: { evidenceCore: JsonObject }; items: JsonObject[] };

describe('the bureau corpus of the service across a restart (file log)', () => {
  it('is saved in the data directory at close, and served from there after the restart', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'corpus-restart-'));
    const pay = createPayingFetch();
    const before = await run(async (url) => {
      const audit = await pay(`${url}/v1/bureau/audit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(transcript) });
      expect(audit.status).toBe(200);
      return corpusOf(url);
    });
    expect(before.total).toBe(1);

    const saved = join(dataDir, 'projections', 'bureau-corpus');
    expect(readFileSync(join(saved, 'bureau-corpus.entries'), 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    expect(existsSync(join(saved, 'bureau-corpus.checkpoint.json'))).toBe(true);

    const after = await run(corpusOf);
    expect(after.total).toBe(1);
    expect(after.anchor.evidenceCore).toEqual(before.anchor.evidenceCore);
    expect(after.items).toEqual(before.items);
  });
});
