import { execFile } from 'node:child_process';
import { verify as cryptoVerify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOperation } from '../../src/catalog/index.ts';
import { rootFromInclusionProof, verifyConsistencyProof } from '../../src/signing/rfc6962-merkle.ts';
import { openCheckpoint } from '../../src/transparency/c2sp-checkpoint.ts';
import { resultLeafBytes } from '../../src/transparency/result-leaf.ts';
import { didKeyOf, didKeyResolver, verifyProof } from '../../src/transparency/eddsa-jcs-2022.ts';
import { publicKeyFromHex } from '../../src/signing/keyring.ts';
import type { JsonObject } from '../../src/signing/rfc8785.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { fetchQuote, signPayment } from '../support/x402-payments.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { checkpointCovering as checkpointCoveringOf, paidUptimeResult } from '../support/result-log-client.ts';

const run = promisify(execFile);
const workDir = mkdtempSync(join(tmpdir(), 'attest-bundles-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

let service: TestService;
const pay = createPayingFetch();
beforeAll(async () => {
  service = await startTestService({ LOG_CHECKPOINT_INTERVAL_MS: '100' });
});
afterAll(() => service.stop());


const getJson = async <T>(path: string): Promise<{ status: number; body: T }> => {
  const res = await fetch(`${service.url}${path}`);
  return { status: res.status, body: (await res.json()) as T };
};

const checkpointCovering = (size: number) => checkpointCoveringOf(service.url, size);
const paidResult = (target: string) => paidUptimeResult(service.url, pay, target);

const logKey = async () => (await getJson<{ publicKey: string }>('/v1/log/public-key')).body.publicKey;
const flip = (hex: string) => `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`;

describe('the result log: every paid result is a leaf, proven against signed checkpoints', () => {
  it('names the leaf of each paid answer, and proves it against a checkpoint signed by the log key; any change fails', async () => {
    const first = await paidResult('https://a.example/mcp');
    const second = await paidResult('https://b.example/mcp');
    expect(second.leafIndex).toBe(first.leafIndex + 1);
    const note = await checkpointCovering(second.leafIndex + 1);
    const opened = openCheckpoint(note, note.split('\n')[0]!, await logKey());
    if (!opened.valid) throw new Error(opened.reason);
    expect(opened.checkpoint.issuedAt).toBeGreaterThan(1_700_000_000);

    const { status, body: proof } = await getJson<{ leaf_index: number; tree_size: number; leaf: { key_family: string; key_id: string; sha256: string }; audit_path: string[]; root_hash: string }>(`/v1/log/proof/inclusion?sha256=${second.sha256}`);
    expect(status).toBe(200);
    expect(proof).toMatchObject({ leaf_index: second.leafIndex, tree_size: opened.checkpoint.treeSize, root_hash: opened.checkpoint.rootHash, leaf: { key_family: 'uptime', sha256: second.sha256 } });
    const rootOf = (leaf: typeof proof.leaf, path = proof.audit_path) => rootFromInclusionProof(resultLeafBytes(leaf), { leafIndex: proof.leaf_index, treeSize: proof.tree_size, auditPath: path });
    expect(rootOf(proof.leaf)).toBe(opened.checkpoint.rootHash);
    // A changed leaf, proof step, root or checkpoint signature fails.
    expect(rootOf({ ...proof.leaf, sha256: first.sha256 })).not.toBe(opened.checkpoint.rootHash);
    expect(rootOf(proof.leaf, proof.audit_path.map((h, i) => (i === 0 ? flip(h) : h)))).not.toBe(opened.checkpoint.rootHash);
    const lines = note.split('\n');
    const otherRoot = Buffer.from(flip(opened.checkpoint.rootHash), 'hex').toString('base64');
    expect(openCheckpoint([lines[0], lines[1], otherRoot, ...lines.slice(3)].join('\n'), lines[0]!, await logKey()).valid).toBe(false);
    const sigLine = lines[4]!;
    const badSig = `${sigLine.slice(0, -6)}${sigLine.slice(-6, -5) === 'A' ? 'B' : 'A'}${sigLine.slice(-5)}`;
    expect(openCheckpoint(note.replace(sigLine, badSig), lines[0]!, await logKey()).valid).toBe(false);
  });

  it('proves every older checkpoint a prefix of a newer one (consistency), and a bent proof fails', async () => {
    const before = await paidResult('https://c.example/mcp');
    const older = await checkpointCovering(before.leafIndex + 1);
    const later = await paidResult('https://d.example/mcp');
    await paidResult('https://e.example/mcp');
    const newer = await checkpointCovering(later.leafIndex + 2);
    const key = await logKey();
    const [a, b] = [older, newer].map((n) => openCheckpoint(n, n.split('\n')[0]!, key)) as [ReturnType<typeof openCheckpoint>, ReturnType<typeof openCheckpoint>];
    if (!a.valid || !b.valid) throw new Error('checkpoints do not open');
    const { body } = await getJson<{ path: string[] }>(`/v1/log/proof/consistency?first=${a.checkpoint.treeSize}&second=${b.checkpoint.treeSize}`);
    const proof = { firstSize: a.checkpoint.treeSize, secondSize: b.checkpoint.treeSize, path: body.path };
    expect(verifyConsistencyProof(a.checkpoint.rootHash, b.checkpoint.rootHash, proof)).toBe(true);
    expect(verifyConsistencyProof(a.checkpoint.rootHash, b.checkpoint.rootHash, { ...proof, path: body.path.map((h, i) => (i === body.path.length - 1 ? flip(h) : h)) })).toBe(false);
    expect(verifyConsistencyProof(flip(a.checkpoint.rootHash), b.checkpoint.rootHash, proof)).toBe(false);
  });

  it('names each call its own leaf when one record is signed for two payers, on replay too, and proves that leaf', async () => {
    const attest = findOperation('veritrack.attest')!;
    const body = JSON.stringify({ kind: 'same-claim', claim: { n: Date.now() } });
    const quote = await fetchQuote(`${service.url}${attest.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const call = async (header: string) => {
      const res = await fetch(`${service.url}${attest.path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': header }, body });
      expect(res.status).toBe(200);
      return { sha256: ((await res.json()) as { sha256: string }).sha256, leaf: Number(res.headers.get('x-log-leaf-index')) };
    };
    // The record is stamped to the second: retried until both calls fall in one second. A retry's
    // first call may fall in the second of the attempt before it, and sign that record again: only
    // the leaf before this test's first call is sure to hold another record.
    let beforeTheTest: number | undefined;
    for (let attempt = 0; ; attempt++) {
      const [a, b] = [(await signPayment(quote)).header, (await signPayment(quote)).header];
      const [first, second] = [await call(a), await call(b)];
      beforeTheTest ??= first.leaf - 1;
      if (first.sha256 !== second.sha256 && attempt < 5) continue;
      expect(second.sha256).toBe(first.sha256);
      expect(second.leaf).toBe(first.leaf + 1);
      expect(await call(b)).toEqual(second);
      await checkpointCovering(second.leaf + 1);
      for (const { leaf } of [first, second]) {
        const proof = await getJson<{ leaf_index: number; leaf: { sha256: string } }>(`/v1/log/proof/inclusion?sha256=${first.sha256}&leaf_index=${leaf}`);
        expect(proof).toMatchObject({ status: 200, body: { leaf_index: leaf, leaf: { sha256: first.sha256 } } });
      }
      expect((await getJson(`/v1/log/proof/inclusion?sha256=${first.sha256}&leaf_index=${beforeTheTest}`)).status).toBe(404);
      return;
    }
  });

  it('answers 404 for a result it never signed, and 422 for a malformed digest or sizes', async () => {
    expect((await getJson(`/v1/log/proof/inclusion?sha256=${'ab'.repeat(32)}`)).status).toBe(404);
    expect((await getJson('/v1/log/proof/inclusion?sha256=xyz')).status).toBe(422);
    expect((await getJson('/v1/log/proof/consistency?first=5&second=2')).status).toBe(422);
    // Past 2^53 a size would be read as another number; it is refused, naming the parameter.
    const beyond = await getJson<{ issues: Array<{ path: string }> }>('/v1/log/proof/consistency?first=1&second=9007199254740993');
    expect(beyond.status).toBe(422);
    expect(beyond.body.issues[0]!.path).toBe('second');
    expect((await getJson(`/v1/log/result/${'ab'.repeat(32)}`)).status).toBe(404);
    // The one error body: with the request id, as every refusal of the service.
    const unknown = await fetch(`${service.url}/v1/log/result/${'cd'.repeat(32)}`);
    expect(await unknown.json()).toEqual({ error: 'not_logged', message: expect.any(String), requestId: unknown.headers.get('x-request-id') });
  });

  it('the command-line verifier checks a bundle step by step with the published keys, and fails a tampered one', async () => {
    const { sha256, leafIndex } = await paidResult('https://f.example/mcp');
    await checkpointCovering(leafIndex + 1);
    const { body: bundle } = await getJson<{ result: { record: Record<string, unknown> }; signing_key: { public_key: string } }>(`/v1/log/result/${sha256}`);
    const genuine = join(workDir, 'genuine.json');
    writeFileSync(genuine, JSON.stringify(bundle));
    const pinned = ['--signing-key', (await getJson<{ publicKey: string }>('/v1/mcp/verify/uptime/public-key')).body.publicKey, '--log-key', await logKey()];
    const ok = await run(process.execPath, ['verifiers/cli/verify.mjs', genuine, ...pinned]);
    expect(ok.stdout).toMatch(/ok {3}digest[\s\S]*ok {3}signature[\s\S]*ok {3}checkpoint[\s\S]*ok {3}inclusion[\s\S]*VALID/);

    const tampered = join(workDir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify({ ...bundle, result: { ...bundle.result, record: { ...bundle.result.record, outcome: 'DOWN' } } }));
    const failed = await run(process.execPath, ['verifiers/cli/verify.mjs', tampered, ...pinned]).catch((err: { code: number; stdout: string }) => err);
    expect(failed).toMatchObject({ code: 1, stdout: expect.stringMatching(/FAIL digest[\s\S]*INVALID/) });

    type Bundle = typeof bundle & { checkpoint: string; inclusion: { leaf_index: number; audit_path: string[] } };
    const full = bundle as Bundle;
    // A character inside the signature's base64, not its last before the padding: those low bits
    // are padding, and changing only them changes no byte (the test passed or failed by chance).
    const flipSignatureBase64 = (line: string) => {
      const at = line.lastIndexOf(' ') + 10;
      return line.slice(0, at) + (line[at] === 'A' ? 'B' : 'A') + line.slice(at + 1);
    };
    const [body, signatures] = full.checkpoint.split('\n\n') as [string, string];
    const bodyLines = body.split('\n');
    const otherRoot = Buffer.alloc(32, 7).toString('base64');
    const variants: Array<[string, Bundle, RegExp]> = [
      ['checkpoint signature', { ...full, checkpoint: `${body}\n\n${signatures.split('\n').map((l, i) => (i === 0 ? flipSignatureBase64(l) : l)).join('\n')}` }, /FAIL (error|checkpoint)/],
      ['checkpoint root', { ...full, checkpoint: `${[bodyLines[0], bodyLines[1], otherRoot].join('\n')}\n\n${signatures}` }, /FAIL (error|checkpoint)/],
      ['leaf index', { ...full, inclusion: { ...full.inclusion, leaf_index: full.inclusion.leaf_index + 1 } }, /FAIL inclusion/],
      ['proof step', { ...full, inclusion: { ...full.inclusion, audit_path: full.inclusion.audit_path.length ? ['00'.repeat(32), ...full.inclusion.audit_path.slice(1)] : ['00'.repeat(32)] } }, /FAIL inclusion/],
    ];
    for (const [name, variant, failure] of variants) {
      const file = join(workDir, `${name.replace(' ', '-')}.json`);
      writeFileSync(file, JSON.stringify(variant));
      const answer = await run(process.execPath, ['verifiers/cli/verify.mjs', file, ...pinned]).catch((err: { code: number; stdout: string }) => err);
      expect(answer, name).toMatchObject({ code: 1, stdout: expect.stringMatching(failure) });
    }

    const otherKey = join(workDir, 'other-key.json');
    writeFileSync(otherKey, JSON.stringify(bundle));
    const wrongKey = await run(process.execPath, ['verifiers/cli/verify.mjs', otherKey, '--signing-key', 'ab'.repeat(32)]).catch((err: { code: number; stdout: string }) => err);
    expect(wrongKey).toMatchObject({ code: 1, stdout: expect.stringMatching(/FAIL key id/) });
  });
});

describe('any logged result as a W3C Verifiable Credential (eddsa-jcs-2022)', () => {
  it('issues the record as credentialSubject under a did:key that resolves offline to the published credentials key; the same credential every time; any change fails', async () => {
    const { sha256 } = await paidResult('https://g.example/mcp');
    const res = await fetch(`${service.url}/v1/credentials/${sha256}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/vc\+ld\+json/);
    const text = await res.text();
    expect(await (await fetch(`${service.url}/v1/credentials/${sha256}`)).text()).toBe(text);
    const vc = JSON.parse(text) as JsonObject & { issuer: string; credentialSubject: JsonObject; proof: { verificationMethod: string } };
    const { body: bundle } = await getJson<{ result: { record: JsonObject } }>(`/v1/log/result/${sha256}`);
    expect(vc.credentialSubject).toEqual(bundle.result.record);
    const credentialsKey = (await getJson<{ publicKey: string }>('/v1/credentials/public-key')).body.publicKey;
    expect(vc.issuer).toBe(didKeyOf(Buffer.from(credentialsKey, 'hex')).did);
    expect(vc.proof.verificationMethod.startsWith(`${vc.issuer}#`)).toBe(true);
    expect(verifyProof(vc, didKeyResolver, ed25519Verify)).toMatchObject({ verified: true });
    const tampered = { ...vc, credentialSubject: { ...vc.credentialSubject, outcome: 'DOWN' } };
    expect(verifyProof(tampered, didKeyResolver, ed25519Verify).verified).toBe(false);
    expect((await fetch(`${service.url}/v1/credentials/${'cd'.repeat(32)}`)).status).toBe(404);
  });
});

function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return cryptoVerify(null, message, publicKeyFromHex(Buffer.from(publicKey).toString('hex')), signature);
}
