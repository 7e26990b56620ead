import { verify as ed25519Verify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { veritrackRecord } from '../src/engines/records.ts';
import { canonicalBytes } from '../src/signing/canonical.ts';
import { sha256Hex } from '../src/signing/hash.ts';
import { createKeyring, publicKeyFromHex } from '../src/signing/keyring.ts';
import { seal } from '../src/signing/seal.ts';
import { load, median, rate } from './support/load.ts';
import { cpuSecondsOf, inRounds, list, roundRatios } from './support/rounds.ts';
import { onLoadCore, onServerCore, spawnServer } from './support/spawn-server.ts';

const SECRET = 'bench-attestation-secret-0123456789abcdef';
const ROUNDS = 9;
const SLICE_SECONDS = 1.5;
const BARE_SECONDS = 0.75;
/** Enough requests in flight that the server, not the load generator's round trips, sets the pace. */
const CONCURRENCY = 64;

/**
 * Verify-route calls per second over HTTP (server alone on one core, load from this process on
 * the other), beside the bare rate of canonicalise + SHA-256 + Ed25519 verify of the same
 * record measured in this run on the server's core. Target: HTTP at least 0.6 of the bare rate.
 */
export default function run(): Promise<void> {
  return onLoadCore(measure);
}

async function measure(): Promise<void> {
  const keyring = createKeyring(SECRET);
  const claim = { model: 'example-7b', benchmark: 'arc-easy', score: 0.81, notes: 'x'.repeat(700) }; // ~1 KiB record
  const record = veritrackRecord({ kind: 'model-eval', attestedAt: 1_767_225_600, claim });
  const s = seal(keyring, 'veritrack', record);

  const publicKeyObject = publicKeyFromHex(keyring.publicKey('veritrack').publicKeyHex);
  const signature = Buffer.from(s.ed25519Sig, 'hex');
  // The target's floor: what anyone holding the public key alone does.
  const bareVerify = () =>
    onServerCore(() =>
      rate(() => {
        const bytes = canonicalBytes(record);
        if (sha256Hex(bytes) !== s.sha256 || !ed25519Verify(null, bytes, publicKeyObject, signature)) throw new Error('bare check failed');
      }, BARE_SECONDS),
    );
  // The same with the service's own check (keyring.verify: re-sign and compare, then verify).
  const bareKeyholder = () =>
    onServerCore(() =>
      rate(() => {
        const bytes = canonicalBytes(record);
        if (sha256Hex(bytes) !== s.sha256 || !keyring.verify('veritrack', bytes, s.ed25519Sig)) throw new Error('keyholder check failed');
      }, BARE_SECONDS),
    );
  const publicKey = Buffer.from(keyring.publicKey('veritrack').publicKeyHex, 'hex');
  const nobleRate = rate(() => {
    if (!ed25519.verify(Buffer.from(s.ed25519Sig, 'hex'), canonicalBytes(record), publicKey)) throw new Error('noble check failed');
  }, 1, 1000);

  const server = await spawnServer(new URL('./support/verify-server.ts', import.meta.url), { ATTESTATION_SECRET: SECRET });
  const bareKoa = await spawnServer(new URL('./support/bare-verify-server.ts', import.meta.url), { ATTESTATION_SECRET: SECRET });
  try {
    const query = `/v1/veritrack/verify?${new URLSearchParams({ kind: String(record.kind), attested_at: String(record.attestedAt), claim: JSON.stringify(claim), sha256: s.sha256, signature: s.ed25519Sig })}`;
    const servers = { service: server, koa: bareKoa };
    const cpuPerCall: Record<keyof typeof servers, number[]> = { service: [], koa: [] };
    for (const warm of Object.values(servers)) await load({ url: warm.url, pathOf: () => query, concurrency: CONCURRENCY, maxRequests: 4000, maxSeconds: 3 });
    let requests = 0;
    // Side by side in short slices, round after round (bench/support/rounds.ts).
    const rates = await inRounds(['bare', 'keyholder', 'koa', 'service'] as const, ROUNDS, async (role) => {
      if (role === 'bare') return bareVerify();
      if (role === 'keyholder') return bareKeyholder();
      const target = servers[role];
      const cpuBefore = cpuSecondsOf(target.child.pid!);
      const run = await load({ url: target.url, pathOf: () => query, concurrency: CONCURRENCY, maxRequests: 100_000, maxSeconds: SLICE_SECONDS });
      const cpuAfter = cpuSecondsOf(target.child.pid!);
      if (Object.keys(run.statuses).some((code) => code !== '200')) throw new Error(`unexpected statuses ${JSON.stringify(run.statuses)}`);
      if (cpuBefore !== undefined && cpuAfter !== undefined) cpuPerCall[role].push(((cpuAfter - cpuBefore) * 1e6) / run.requests);
      if (role === 'service') requests += run.requests;
      return run.perSecond;
    });
    const cpu = (role: keyof typeof servers) => (cpuPerCall[role].length ? `, ${median(cpuPerCall[role]).toFixed(0)} us server CPU/call` : '');
    const serviceToBare = roundRatios(rates.service, rates.bare);
    console.log(`bare canonicalise+sha256+ed25519 verify (node:crypto, on the server's core): ${median(rates.bare).toFixed(0)}/s, ${(1e6 / median(rates.bare)).toFixed(0)} us/call (rounds: ${list(rates.bare)})`);
    console.log(`same with the service's check (re-sign and compare):  ${median(rates.keyholder).toFixed(0)}/s, ${(1e6 / median(rates.keyholder)).toFixed(0)} us/call (rounds: ${list(rates.keyholder)})`);
    console.log(`same with @noble/curves verify (reference):           ${nobleRate.toFixed(0)}/s`);
    console.log(`GET /v1/veritrack/verify over HTTP (1 server core):    ${median(rates.service).toFixed(0)}/s${cpu('service')} (rounds: ${list(rates.service)}; ${requests} requests)`);
    console.log(`same verification on bare Koa (one handler, no framework): ${median(rates.koa).toFixed(0)}/s${cpu('koa')} (rounds: ${list(rates.koa)})`);
    console.log(`ratio HTTP / bare: ${serviceToBare.median.toFixed(2)} (target >= 0.6), median of the rounds' ${list(serviceToBare.ratios, 2)}`);
    console.log(`ratio HTTP / bare with the service's check (the cost of HTTP and the framework): ${roundRatios(rates.service, rates.keyholder).median.toFixed(2)}`);
    console.log(`ratio bare Koa / bare: ${roundRatios(rates.koa, rates.bare).median.toFixed(2)}; service / bare Koa: ${roundRatios(rates.service, rates.koa).median.toFixed(2)}`);
    if (cpuPerCall.service.length) {
      const capacity = 1e6 / median(cpuPerCall.service);
      console.log(`one core's capacity by the service's CPU time per call: ${capacity.toFixed(0)}/s, ${(capacity / median(rates.bare)).toFixed(2)} of bare`);
    }
  } finally {
    await server.stop();
    await bareKoa.stop();
  }
}
