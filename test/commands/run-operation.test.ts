import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOperation } from '../../src/catalog/index.ts';
import { runOperation } from '../../src/kernel/run-operation.ts';
import { canonicalBytes } from '../../src/signing/rfc8785.ts';
import { seal } from '../../src/signing/seal.ts';
import { testCallContext } from '../support/call-context.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('veritrack attest through the command layer', () => {
  let service: TestService;
  beforeAll(async () => (service = await startTestService()));
  afterAll(() => service.stop());

  const op = findOperation('veritrack.attest')!;
  const input = { kind: 'model-eval', claim: { model: 'm', score: 0.5, notes: ['a', 'é'] } };

  it('stamps attestedAt from the call, carries the claim verbatim, and presents the record at the top level', async () => {
    const ctx = testCallContext({ now: 1_800_000_000 });
    const result = await runOperation(op, input, ctx);
    expect(result.record).toEqual({ kind: 'model-eval', attestedAt: 1_800_000_000, claim: input.claim });
    expect(result.body).toMatchObject({ ...result.record, sha256: result.seal.sha256, ed25519Sig: result.seal.ed25519Sig, keyId: result.seal.keyId });
    expect(result.body.verifyUrl).toBe('http://127.0.0.1:4021/v1/veritrack/verify');
    expect(result.body.publicKeyUrl).toBe('http://127.0.0.1:4021/v1/veritrack/public-key');
  });

  it('signs a record of 256 KiB or more on the thread pool, not on the event loop, with the same seal', async () => {
    const ctx = testCallContext({ now: 1_800_000_000 });
    const calls = { onLoop: 0, onThreadPool: 0 };
    const keyring = { ...ctx.keyring, sign: (...args: Parameters<typeof ctx.keyring.sign>) => (calls.onLoop++, ctx.keyring.sign(...args)), signOnThreadPool: (...args: Parameters<typeof ctx.keyring.signOnThreadPool>) => (calls.onThreadPool++, ctx.keyring.signOnThreadPool(...args)) };
    const large = { kind: 'model-eval', claim: { notes: 'x'.repeat(300_000) } };
    const result = await runOperation(op, large, { ...ctx, keyring });
    expect(calls).toEqual({ onLoop: 0, onThreadPool: 1 });
    expect(result.seal).toEqual(seal(ctx.keyring, 'veritrack', result.record));
    await runOperation(op, input, { ...ctx, keyring });
    expect(calls).toEqual({ onLoop: 1, onThreadPool: 1 });
  });

  it('differs between identical requests only in attestedAt', async () => {
    const a = await runOperation(op, input, testCallContext({ now: 100 }));
    const b = await runOperation(op, input, testCallContext({ now: 200 }));
    expect({ ...a.record, attestedAt: 0 }).toEqual({ ...b.record, attestedAt: 0 });
    expect(canonicalBytes({ ...a.record, attestedAt: 0 }).equals(canonicalBytes({ ...b.record, attestedAt: 0 }))).toBe(true);
  });

  it('re-checks on GET /v1/veritrack/verify of the running service (same secret)', async () => {
    const { record, seal } = await runOperation(op, input, testCallContext());
    const params = new URLSearchParams({
      kind: String(record.kind),
      attested_at: String(record.attestedAt),
      claim: JSON.stringify(record.claim),
      sha256: seal.sha256,
      signature: seal.ed25519Sig,
    });
    const res = await fetch(`${service.url}/v1/veritrack/verify?${params}`);
    expect(await res.json()).toEqual({ valid: true, checks: { sha256: true, signature: true }, family: 'veritrack', keyId: seal.keyId, key_generation: 0 });
  });
});
