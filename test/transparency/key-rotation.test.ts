import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEventLog } from '../../src/audit/audit.ts';
import { findOperation } from '../../src/catalog/index.ts';
import { eventId } from '../../src/events/event-ids.ts';
import { rotateKeys } from '../../src/key-generations.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { canonicalBytes, type JsonObject } from '../../src/signing/rfc8785.ts';
import { sha256Hex } from '../../src/signing/hash.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { startTestService, TEST_SECRET, type TestService } from '../support/service.ts';

const run = promisify(execFile);
const uptime = findOperation('mcp.verify.uptime')!;
const threatModel = findOperation('security.threatmodel')!;
const dataDir = mkdtempSync(join(tmpdir(), 'attest-rotation-'));
const pay = createPayingFetch();
let service: TestService;
let rotationAt: number;

type Paid = { evidenceCore: JsonObject & { probedAt: number }; sha256: string; ed25519Sig: string };
const paid = async (target: string): Promise<Paid> => {
  const res = await pay(`${service.url}${uptime.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...(uptime.example as object), target }) });
  expect(res.status).toBe(200);
  return (await res.json()) as Paid;
};
const recheck = async (record: JsonObject, sha256: string, signature: string) => {
  const res = await fetch(`${service.url}/v1/mcp/verify/uptime/recheck`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ body: JSON.stringify(record), sha256, signature }) });
  return (await res.json()) as { valid: boolean; key_generation?: number; reason?: string };
};
type History = { keys: Array<{ family: string; generation: number; public_key: string; key_id: string; valid_from: number; valid_until: number | null }>; rotations: Array<{ generation: number; first_checkpoint: { tree_size: number } | null }> };

let before: Paid;
let after: Paid;
let persistedBefore: { evidenceCore: JsonObject & { attestation_id: string }; sha256: string; ed25519Sig: string };

beforeAll(async () => {
  const now = Math.floor(Date.now() / 1000);
  rotationAt = now + 2;
  rotateKeys(dataDir, rotationAt, now);
  service = await startTestService({ DATA_DIR: dataDir, LOG_CHECKPOINT_INTERVAL_MS: '100' });
  before = await paid('https://before.example/mcp');
  const persisted = await pay(`${service.url}${threatModel.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(threatModel.example) });
  persistedBefore = (await persisted.json()) as typeof persistedBefore;
  while (Math.floor(Date.now() / 1000) < rotationAt) await new Promise((r) => setTimeout(r, 100));
  after = await paid('https://after.example/mcp');
}, 20_000);
afterAll(async () => {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('key rotation by configuration', () => {
  it('signs before the rotation with generation 0 and after it with generation 1; both verify on the free route', async () => {
    expect(before.evidenceCore.probedAt).toBeLessThan(rotationAt);
    expect(after.evidenceCore.probedAt).toBeGreaterThanOrEqual(rotationAt);
    expect(await recheck(before.evidenceCore, before.sha256, before.ed25519Sig)).toMatchObject({ valid: true, key_generation: 0 });
    expect(await recheck(after.evidenceCore, after.sha256, after.ed25519Sig)).toMatchObject({ valid: true, key_generation: 1 });
  });

  it('reads a record persisted before the rotation back with the signature it was paid with, not one by the new key', async () => {
    const read = (await (await fetch(`${service.url}/v1/security/threatmodel/verify/${persistedBefore.evidenceCore.attestation_id}`)).json()) as { sha256: string; ed25519Sig: string; keyId: string };
    expect(read).toMatchObject({ sha256: persistedBefore.sha256, ed25519Sig: persistedBefore.ed25519Sig });
    const fresh = createKeyring(TEST_SECRET);
    expect(read.keyId).toBe(fresh.publicKey('threatmodel').keyId);
  });

  it('publishes the key history with windows, and the first checkpoint signed by the new log key', async () => {
    let history: History | undefined;
    for (let i = 0; i < 60 && !history?.rotations[0]?.first_checkpoint; i++) {
      history = (await (await fetch(`${service.url}/v1/keys/history`)).json()) as History;
      await new Promise((r) => setTimeout(r, 50));
    }
    const uptimeKeys = history!.keys.filter((k) => k.family === 'uptime');
    expect(uptimeKeys.map((k) => [k.generation, k.valid_from, k.valid_until])).toEqual([
      [0, 0, rotationAt],
      [1, rotationAt, null],
    ]);
    expect(history!.rotations).toEqual([expect.objectContaining({ generation: 1, first_checkpoint: expect.objectContaining({ tree_size: expect.any(Number) }) })]);
  });

  it('verifies both offline with the key of their time from the history, and the audit passes', async () => {
    const history = (await (await fetch(`${service.url}/v1/keys/history`)).json()) as History;
    const keyOf = (generation: number, family: string) => history.keys.find((k) => k.family === family && k.generation === generation)!.public_key;
    for (const [result, generation] of [[before, 0], [after, 1]] as const) {
      let bundle: { inclusion?: unknown } = {};
      for (let i = 0; i < 60 && !bundle.inclusion; i++) {
        bundle = (await (await fetch(`${service.url}/v1/log/result/${result.sha256}`)).json()) as { inclusion?: unknown };
        if (!bundle.inclusion) await new Promise((r) => setTimeout(r, 50));
      }
      const file = join(dataDir, `bundle-${generation}.json`);
      writeFileSync(file, JSON.stringify(bundle));
      const { stdout } = await run(process.execPath, ['verifiers/cli/verify.mjs', file, '--signing-key', keyOf(generation, 'uptime'), '--log-key', keyOf(1, 'log')]);
      expect(stdout).toMatch(/VALID$/m);
    }
    const report = await auditEventLog({ store: service.deps.store, keyring: service.deps.keyring, chainRules: [] });
    expect(report).toMatchObject({ ok: true, results: 3 });
  });

  it('a result stamped after the old key\'s window but signed with the old key fails, on the free route and in the audit', async () => {
    const oldKeyring = createKeyring(TEST_SECRET);
    const record = { ...after.evidenceCore, target: 'https://forged.example/mcp' };
    const bytes = canonicalBytes(record);
    const forged = { sha256: sha256Hex(bytes), signature: oldKeyring.sign('uptime', bytes) };
    const answer = await recheck(record, forged.sha256, forged.signature);
    expect(answer).toMatchObject({ valid: false, key_generation: 0, reason: expect.stringMatching(/not the key of its time/) });

    const stream = `payment-0x${'ab'.repeat(20)}-0x${'cd'.repeat(32)}`;
    await service.deps.store.appendToStream(stream, [
      { id: eventId(stream, 'ResultSigned'), type: 'ResultSigned', data: { operation: uptime.id, keyFamily: 'uptime', record, sha256: forged.sha256, ed25519Sig: forged.signature, keyId: oldKeyring.publicKey('uptime').keyId, signedAt: record.probedAt } },
    ]);
    const report = await auditEventLog({ store: service.deps.store, keyring: service.deps.keyring, chainRules: [] });
    expect(report.failuresByKind).toMatchObject({ 'result-key-window': 1 });
  });

  it('the governance re-check routes hold a record to the key of its time too, and name the key that signed', async () => {
    const oldKeyring = createKeyring(TEST_SECRET);
    const verify = async (record: JsonObject, keyring: typeof oldKeyring) => {
      const bytes = canonicalBytes(record);
      const body = JSON.stringify({ body: JSON.stringify(record), sha256: sha256Hex(bytes), signature: keyring.sign('governance', bytes) });
      return (await (await fetch(`${service.url}/v1/bureau/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()) as { valid: boolean; keyId: string; key_generation?: number };
    };
    const stamped = (at: number): JsonObject => ({ kind: 'bureau.audit', auditedAt: at, target: 'https://bureau.example' });
    // Signed by generation 0 within its window: valid, and generation 0 is named.
    expect(await verify(stamped(rotationAt - 60), oldKeyring)).toMatchObject({ valid: true, key_generation: 0, keyId: oldKeyring.publicKey('governance').keyId });
    // Stamped after the rotation, signed by the retired key: not valid.
    expect(await verify(stamped(rotationAt + 60), oldKeyring)).toMatchObject({ valid: false });
    expect(await verify(stamped(rotationAt + 60), service.deps.keyring)).toMatchObject({ valid: true, key_generation: 1 });
  });
});
