import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { createLogger } from '../../src/logger.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { seal } from '../../src/signing/seal.ts';
import { TEST_SECRET } from '../support/service.ts';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

describe('the logs at info', () => {
  const lines: LogLine[] = [];
  const logger = createLogger({ LOG_LEVEL: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const dataDir = mkdtempSync(join(tmpdir(), 'attest-log-'));
  let service: RunningService;
  beforeAll(async () => {
    const settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ATTESTATION_SECRET: TEST_SECRET });
    service = await startService(settings, createMemoryEventStore(), logger);
  });
  afterAll(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const accessLines = () => lines.filter((line) => line.msg === 'request');

  it('write one line per request with its request id, method, route path, status and duration', async () => {
    const record = { kind: 'model-eval', attestedAt: 1767225600, claim: { score: 0.81 } };
    const s = seal(createKeyring(TEST_SECRET), 'veritrack', record);
    const query = new URLSearchParams({ kind: record.kind, attested_at: String(record.attestedAt), claim: JSON.stringify(record.claim), sha256: s.sha256, signature: s.ed25519Sig });
    const before = accessLines().length;
    const res = await fetch(`${service.url}/v1/veritrack/verify?${query}`);
    expect(((await res.json()) as { valid: boolean }).valid).toBe(true);
    const line = accessLines().at(-1)!;
    expect(accessLines()).toHaveLength(before + 1);
    expect(line).toMatchObject({ level: 30, requestId: res.headers.get('x-request-id'), method: 'GET', path: '/v1/veritrack/verify', status: 200 });
    expect(typeof line.ms).toBe('number');
    // Nothing the caller sent beyond the route: no query string, hence no record, hash or signature.
    expect(JSON.stringify(line)).not.toContain(s.ed25519Sig);
    expect(JSON.stringify(line)).not.toContain('model-eval');
  });

  it('never carry a payment header, in the access line or in any other line', async () => {
    const payment = Buffer.from(JSON.stringify({ x402Version: 2, payload: { signature: '0xfeedface' } })).toString('base64');
    await fetch(`${service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': payment }, body: '{"kind":"a","claim":{}}' });
    expect(accessLines().at(-1)).toMatchObject({ method: 'POST', path: '/v1/veritrack/attest' });
    logger.info({ req: { headers: { 'payment-signature': payment, 'x-payment': payment } }, settings: { ATTESTATION_SECRET: TEST_SECRET } }, 'diagnostics');
    expect(lines.at(-1)).toMatchObject({ msg: 'diagnostics', req: { headers: { 'payment-signature': '[Redacted]', 'x-payment': '[Redacted]' } }, settings: { ATTESTATION_SECRET: '[Redacted]' } });
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain(payment);
    expect(everything).not.toContain('0xfeedface');
    expect(everything).not.toContain(TEST_SECRET);
  });
});
