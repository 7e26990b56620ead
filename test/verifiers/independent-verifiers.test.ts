import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOperation } from '../../src/catalog/index.ts';
import { canonicalText } from '../../src/signing/rfc8785.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { pythonWithCryptography } from '../support/python-verifier.ts';
import { startTestWitness } from '../support/tlog-witness-server.ts';

const run = promisify(execFile);
const workDir = mkdtempSync(join(tmpdir(), 'attest-verifiers-'));
const uptime = findOperation('mcp.verify.uptime')!;
let service: TestService;
let genuine: Record<string, unknown>;
let tampered: Record<string, unknown>;
let pins: { signingKey: string; logKey: string };

beforeAll(async () => {
  service = await startTestService({ LOG_CHECKPOINT_INTERVAL_MS: '100' });
  const pay = createPayingFetch();
  const res = await pay(`${service.url}${uptime.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(uptime.example) });
  const { sha256 } = (await res.json()) as { sha256: string };
  for (let i = 0; i < 100 && !genuine?.['inclusion']; i++) {
    genuine = (await (await fetch(`${service.url}/v1/log/result/${sha256}`)).json()) as Record<string, unknown>;
    if (!genuine['inclusion']) await new Promise((r) => setTimeout(r, 50));
  }
  const result = genuine['result'] as { record: Record<string, unknown> };
  tampered = { ...genuine, result: { ...result, record: { ...result.record, availability: 0.5 } } };
  const key = async (path: string) => ((await (await fetch(`${service.url}${path}`)).json()) as { publicKey: string }).publicKey;
  pins = { signingKey: await key('/v1/mcp/verify/uptime/public-key'), logKey: await key('/v1/log/public-key') };
});
afterAll(async () => {
  await service.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const python = pythonWithCryptography();
if (!python) console.log('Python verifier tests skipped: no python3 with the cryptography package (Debian: apt-get install python3-cryptography)');

describe.skipIf(!python)('the Python verifier (standard library + cryptography)', () => {
  const verifyWithPython = async (bundle: unknown, extra: string[] = []) => {
    const file = join(workDir, `bundle-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(bundle));
    return run(python!, ['verifiers/python/verify_result.py', file, ...extra]).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
  };

  it('accepts a genuine result against the pinned keys, step by step', async () => {
    const { code, stdout } = await verifyWithPython(genuine, ['--signing-key', pins.signingKey, '--log-key', pins.logKey]);
    expect(stdout).toMatch(/ok {3}digest[\s\S]*ok {3}signature[\s\S]*ok {3}checkpoint[\s\S]*ok {3}inclusion[\s\S]*VALID/);
    expect(code).toBe(0);
  });

  it('names the member a malformed bundle lacks, as the command-line verifier does', async () => {
    const { result: _result, ...withoutResult } = genuine;
    const withoutSignature = { ...genuine, result: { ...(genuine['result'] as object), ed25519Sig: undefined } };
    expect(await verifyWithPython(withoutResult)).toMatchObject({ code: 1, stdout: expect.stringContaining('FAIL format: the bundle has no `result` object') });
    expect(await verifyWithPython(withoutSignature)).toMatchObject({ code: 1, stdout: expect.stringContaining('FAIL format: the bundle has no `result.ed25519Sig` text') });
    const file = join(workDir, 'without-result.json');
    writeFileSync(file, JSON.stringify(withoutResult));
    const cli = await run(process.execPath, ['verifiers/cli/verify.mjs', file]).catch((err: { code: number; stdout: string }) => err);
    expect(cli).toMatchObject({ code: 1, stdout: expect.stringContaining('FAIL format: the bundle has no `result` object') });
  });

  it('tells a verifier whose bundle no checkpoint covers yet to fetch it again, as the command-line verifier does', async () => {
    expect(await verifyWithPython({ ...genuine, inclusion: null })).toMatchObject({ code: 1, stdout: expect.stringContaining('FAIL inclusion: the bundle has no inclusion proof yet: fetch it again once a checkpoint covers the result') });
  });

  it('tells a verifier who passes the paid answer where its bundle is, as the command-line verifier does', async () => {
    const { record, sha256, ed25519Sig } = genuine['result'] as { record: object; sha256: string; ed25519Sig: string };
    expect(await verifyWithPython({ ...record, sha256, ed25519Sig })).toMatchObject({ code: 1, stdout: expect.stringContaining('save the result\'s bundle from GET /v1/log/result/<sha256>') });
  });

  it('rejects a tampered record and a key that did not sign it', async () => {
    expect(await verifyWithPython(tampered)).toMatchObject({ code: 1, stdout: expect.stringMatching(/FAIL digest/) });
    expect(await verifyWithPython(genuine, ['--signing-key', 'ab'.repeat(32)])).toMatchObject({ code: 1, stdout: expect.stringMatching(/FAIL key id/) });
  });

  it('canonicalises as RFC 8785 does: the reference vectors, and random documents byte for byte like the service', async () => {
    for (const name of ['arrays', 'french', 'structures', 'unicode', 'values', 'weird']) {
      const { stdout } = await run(python!, ['verifiers/python/verify_result.py', '--canonicalize', `test/fixtures/jcs/input/${name}.json`], { encoding: 'buffer' });
      expect(Buffer.from(stdout).equals(execFileSync('cat', [`test/fixtures/jcs/output/${name}.json`])), name).toBe(true);
    }
    const documents = fc.sample(fc.jsonValue({ maxDepth: 3 }), { numRuns: 150, seed: 2026 });
    documents.push([1e21, 1e-7, 123456789012345680000, 5e-324, -0.000001, 0.1 + 0.2, 2 ** 60, 1.5e300]);
    const file = join(workDir, 'documents.json');
    writeFileSync(file, JSON.stringify(documents));
    const { stdout } = await run(python!, ['verifiers/python/verify_result.py', '--canonicalize', file], { encoding: 'buffer' });
    expect(Buffer.from(stdout).toString('utf8')).toBe(canonicalText(JSON.parse(JSON.stringify(documents))));
  });
});

const chromiumPath = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p): p is string => Boolean(p) && existsSync(p!));
if (!chromiumPath) console.log('Browser verifier tests skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); .ci/run installs it');

describe.skipIf(!chromiumPath)('the browser page at /verify, in headless Chromium', () => {
  const verifyInBrowser = async (bundle: unknown, options: { withoutWebCryptoEd25519?: boolean; witnesses?: string[] } = {}) => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: chromiumPath!, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      // A browser whose WebCrypto lacks Ed25519: the page must fall back to tweetnacl.
      if (options.withoutWebCryptoEd25519)
        await page.addInitScript(`{
          const importKey = crypto.subtle.importKey.bind(crypto.subtle);
          crypto.subtle.importKey = (format, data, algorithm, ...rest) =>
            (algorithm === 'Ed25519' || algorithm?.name === 'Ed25519') ? Promise.reject(new DOMException('Algorithm: Unrecognized name', 'NotSupportedError')) : importKey(format, data, algorithm, ...rest);
        }`);
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(`${service.url}/verify`);
      await page.fill('#bundle', JSON.stringify(bundle));
      if (options.witnesses) await page.fill('#witnesses', options.witnesses.join('\n'));
      await page.click('#check');
      await page.waitForFunction(`document.getElementById('verdict').textContent !== ''`);
      const verdict = await page.textContent('#verdict');
      const steps = await page.$$eval('#steps li', (items) => items.map((li) => ({ name: li.getAttribute('data-step'), ok: li.className === 'ok' })));
      return { verdict, steps, requests };
    } finally {
      await browser.close();
    }
  };

  it('verifies a genuine result with WebCrypto, and sends the result nowhere', async () => {
    const { verdict, steps, requests } = await verifyInBrowser(genuine);
    expect(verdict).toBe('VALID');
    expect(steps).toEqual([
      { name: 'digest', ok: true },
      { name: 'signing key', ok: true },
      { name: 'key id', ok: true },
      { name: 'signature', ok: true },
      { name: 'checkpoint', ok: true },
      { name: 'inclusion', ok: true },
    ]);
    expect(requests.every((u) => u.startsWith(`${service.url}/verify`))).toBe(true);
  }, 60_000);

  it('rejects a tampered result', async () => {
    const { verdict, steps } = await verifyInBrowser(tampered);
    expect(verdict).toBe('INVALID');
    expect(steps[0]).toEqual({ name: 'digest', ok: false });
  }, 60_000);

  it('requires the witnesses named in its field: one whose cosignature the checkpoint carries passes, one without fails', async () => {
    const note = genuine['checkpoint'] as string;
    const logKeyHex = (genuine['log_key'] as { public_key: string }).public_key;
    const witness = await startTestWitness({ logOrigin: () => note.split('\n')[0]!, logPublicKeyHex: () => logKeyHex });
    try {
      const cosignature = await (await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: `old 0\n\n${note}` })).text();
      const witnessed = await verifyInBrowser({ ...genuine, checkpoint: note + cosignature }, { witnesses: [witness.vkey] });
      expect(witnessed.verdict).toBe('VALID');
      expect(witnessed.steps.at(-1)).toEqual({ name: `witness ${witness.name}`, ok: true });
      const unwitnessed = await verifyInBrowser(genuine, { witnesses: [witness.vkey] });
      expect(unwitnessed.verdict).toBe('INVALID');
      expect(unwitnessed.steps.at(-1)).toEqual({ name: `witness ${witness.name}`, ok: false });
    } finally {
      await witness.close();
    }
  }, 60_000);

  it('falls back to the pure-JavaScript Ed25519 where WebCrypto has none', async () => {
    expect((await verifyInBrowser(genuine, { withoutWebCryptoEd25519: true })).verdict).toBe('VALID');
    expect((await verifyInBrowser({ ...genuine, result: { ...(genuine['result'] as object), ed25519Sig: '00'.repeat(64) } }, { withoutWebCryptoEd25519: true })).verdict).toBe('INVALID');
  }, 60_000);
});
