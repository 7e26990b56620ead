import { ed25519 } from '@noble/curves/ed25519.js';
import { veritrackRecord } from '../src/engines/records.ts';
import { canonicalBytes } from '../src/signing/canonical.ts';
import { sha256Hex } from '../src/signing/hash.ts';
import { createKeyring } from '../src/signing/keyring.ts';
import { seal } from '../src/signing/seal.ts';
import { load, median, rate } from './support/load.ts';
import { spawnServer } from './support/spawn-server.ts';

const SECRET = 'bench-attestation-secret-0123456789abcdef';

/**
 * Verify-route calls per second over HTTP (server alone on one core, load from this process on
 * the other), beside the bare rate of canonicalise + SHA-256 + Ed25519 verify of the same
 * record measured in this run. Target: HTTP at least 0.6 of the bare rate.
 */
export default async function run(): Promise<void> {
  const keyring = createKeyring(SECRET);
  const claim = { model: 'example-7b', benchmark: 'arc-easy', score: 0.81, notes: 'x'.repeat(700) }; // ~1 KiB record
  const record = veritrackRecord({ kind: 'model-eval', attestedAt: 1_767_225_600, claim });
  const s = seal(keyring, 'veritrack', record);

  const bareOnce = () =>
    rate(() => {
      const bytes = canonicalBytes(record);
      if (sha256Hex(bytes) !== s.sha256 || !keyring.verify('veritrack', bytes, s.ed25519Sig)) throw new Error('bare check failed');
    }, 1.5);
  const publicKey = Buffer.from(keyring.publicKey('veritrack').publicKeyHex, 'hex');
  const nobleRate = rate(() => {
    if (!ed25519.verify(Buffer.from(s.ed25519Sig, 'hex'), canonicalBytes(record), publicKey)) throw new Error('noble check failed');
  }, 1, 1000);

  const server = await spawnServer(new URL('./support/verify-server.ts', import.meta.url), { ATTESTATION_SECRET: SECRET });
  const bareKoa = await spawnServer(new URL('./support/bare-verify-server.ts', import.meta.url), { ATTESTATION_SECRET: SECRET });
  try {
    const query = `/v1/veritrack/verify?${new URLSearchParams({ kind: String(record.kind), attested_at: String(record.attestedAt), claim: JSON.stringify(claim), sha256: s.sha256, signature: s.ed25519Sig })}`;
    await load({ url: server.url, pathOf: () => query, concurrency: 16, maxRequests: 2000, maxSeconds: 3 }); // warm-up
    // Shared machines drift: alternate the two measurements and compare medians.
    const bare: number[] = [];
    const http: number[] = [];
    const koaFloor: number[] = [];
    let requests = 0;
    await load({ url: bareKoa.url, pathOf: () => query, concurrency: 16, maxRequests: 2000, maxSeconds: 3 });
    for (let round = 0; round < 3; round++) {
      bare.push(bareOnce());
      koaFloor.push((await load({ url: bareKoa.url, pathOf: () => query, concurrency: 16, maxRequests: 100_000, maxSeconds: 4 })).perSecond);
      const run = await load({ url: server.url, pathOf: () => query, concurrency: 16, maxRequests: 100_000, maxSeconds: 4 });
      if (Object.keys(run.statuses).some((code) => code !== '200')) throw new Error(`unexpected statuses ${JSON.stringify(run.statuses)}`);
      http.push(run.perSecond);
      requests += run.requests;
    }
    const [bareRate, httpRate] = [median(bare), median(http)];
    console.log(`bare canonicalise+sha256+ed25519 verify (node:crypto): ${bareRate.toFixed(0)}/s (median of ${bare.map((r) => r.toFixed(0)).join(', ')})`);
    console.log(`same with @noble/curves verify (reference):           ${nobleRate.toFixed(0)}/s`);
    console.log(`GET /v1/veritrack/verify over HTTP (1 server core):    ${httpRate.toFixed(0)}/s (median of ${http.map((r) => r.toFixed(0)).join(', ')}; ${requests} requests)`);
    console.log(`same verification on bare Koa (one handler, no framework): ${median(koaFloor).toFixed(0)}/s (median of ${koaFloor.map((r) => r.toFixed(0)).join(', ')})`);
    console.log(`ratio HTTP / bare: ${(httpRate / bareRate).toFixed(2)} (target >= 0.6); service / bare Koa: ${(httpRate / median(koaFloor)).toFixed(2)}`);
  } finally {
    await server.stop();
    await bareKoa.stop();
  }
}
