import { describe, expect, it } from 'vitest';
import type { SignedResult } from '../../../kernel/run-operation.ts';
import { postTo, useTestService } from '../../../../test/support/service.ts';
import { runAgainst } from '../../../../test/support/http.ts';

const service = useTestService();

const recheck = async (path: string, result: SignedResult) =>
  (await (await postTo(service, path, { evidenceCore: result.record, sha256: result.seal.sha256, signature: result.seal.ed25519Sig })).json()) as { valid: boolean; reason?: string };

describe('the two governance re-check routes, as docs/operations/governance.md describes them', () => {
  it('a settlement or lease record re-checks on /v1/governance/verify only; a bureau record on /v1/bureau/verify only', async () => {
    const lease = await runAgainst(service, 'governance.reserve', { agent_id: 'recheck-routes', amount: '1', purpose: 'p', ttl_seconds: 600, budget: { cap: '5', period: 3600 } });
    const settlement = await runAgainst(service, 'governance.settle', { lease_id: lease.record.lease_id, actual_amount: '1' });
    for (const record of [lease, settlement]) {
      expect(await recheck('/v1/governance/verify', record)).toMatchObject({ valid: true });
      expect(await recheck('/v1/bureau/verify', record)).toMatchObject({ valid: false, reason: expect.stringMatching(/^a governance\.(lease|settlement) record is not re-checked here/) });
    }
    const audit = await runAgainst(service, 'bureau.audit', { endpoint: { url: 'https://api.example.com/x', method: 'GET' }, challenge: { status: 402, headers: {} } });
    expect(await recheck('/v1/bureau/verify', audit)).toMatchObject({ valid: true });
    expect(await recheck('/v1/governance/verify', audit)).toMatchObject({ valid: false, reason: expect.stringMatching(/^a bureau\.audit record is not re-checked here/) });
  });
});
