import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst, tampers, verifyBody } from '../../../../test/support/http.ts';

const service = useTestService();

const input = {
  target: 'https://mcp.example/sse',
  checks: [
    { at: 1_767_225_000, ok: true, latency_ms: 84, status: 200 },
    { at: 1_767_225_300, ok: true, latency_ms: 97, status: 200 },
  ],
  settlement_anchor: `0x${'5e'.repeat(32)}`,
};

describe('uptime probe over HTTP', () => {
  it('quotes with 402, and answers a malformed anchor or no checks with 422 naming the field', async () => {
    expect((await postJson(`${service.url}/v1/mcp/verify/uptime`, input)).status).toBe(402);
    const badAnchor = await postJson(`${service.url}/v1/mcp/verify/uptime`, { ...input, settlement_anchor: '0x1234' });
    expect(badAnchor.status).toBe(422);
    expect(badAnchor.body).toMatchObject({ issues: [{ path: 'settlement_anchor' }] });
    const noChecks = await postJson(`${service.url}/v1/mcp/verify/uptime`, { ...input, checks: [] });
    expect(noChecks).toMatchObject({ status: 422, body: { issues: [{ path: 'checks', message: 'must contain at least one check' }] } });
    const badCheck = await postJson(`${service.url}/v1/mcp/verify/uptime`, { ...input, checks: [{ at: 1, ok: 'yes' }] });
    expect(badCheck).toMatchObject({ status: 422, body: { issues: [{ path: 'checks.0.ok' }] } });
  });

  it('signs the evidenceCore and re-checks it on the recheck route (query and body forms); every tamper fails', async () => {
    const result = await runAgainst(service, 'mcp.verify.uptime', input);
    expect(result.body).toHaveProperty('evidenceCore.outcome', 'UP-SETTLES');
    const { sha256, ed25519Sig } = result.seal;
    expect((await verifyBody(service, 'POST', '/v1/mcp/verify/uptime/recheck', result.record, sha256, ed25519Sig)).valid).toBe(true);
    const qs = new URLSearchParams({ body: JSON.stringify(result.record), sha256, signature: ed25519Sig });
    const viaQuery = await fetch(`${service.url}/v1/mcp/verify/uptime/recheck?${qs}`, { method: 'POST' });
    expect(await viaQuery.json()).toMatchObject({ valid: true });
    for (const t of tampers(result.record as Record<string, JsonValue>, sha256, ed25519Sig))
      expect((await verifyBody(service, 'POST', '/v1/mcp/verify/uptime/recheck', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
  });
});

describe('uptime checks the service could not have seen happen', () => {
  it('a check stamped after the call, or in milliseconds, is refused with 422 before any quote, never scored', async () => {
    const now = Math.floor(Date.now() / 1000);
    const future = await postJson(`${service.url}/v1/mcp/verify/uptime`, { ...input, checks: [{ at: now - 60, ok: true }, { at: now + 3600, ok: true }] });
    expect(future.status).toBe(422);
    expect(future.body).toMatchObject({ error: 'check_after_call', outcome: 'INVALID-INPUT', issues: [{ path: 'checks.1.at' }] });
    // The message alone says which check, for a client that shows only the message.
    expect(future.body.message).toMatch(/^checks\.1\.at: \d+ is after the time of the call/);
    const millis = await postJson(`${service.url}/v1/mcp/verify/uptime`, { ...input, checks: [{ at: Date.now(), ok: true }] });
    expect(millis.status).toBe(422);
    expect(millis.body).toMatchObject({ issues: [{ path: 'checks.0.at', message: expect.stringContaining('milliseconds') }] });
  });
});
