import { verify as ed25519Verify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { veritrackRecord } from '../src/kernel/route-kit/records.ts';
import { canonicalBytes } from '../src/signing/rfc8785.ts';
import { sha256Hex } from '../src/signing/hash.ts';
import { createKeyring, publicKeyFromHex } from '../src/signing/keyring.ts';
import { seal } from '../src/signing/seal.ts';
import { load, loopRate, median, rate } from './support/load.ts';
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
  /** Canonicalise + SHA-256 + a signature check of the record, as one bare loop body. */
  const bareLoop = (name: string, signatureOk: (bytes: Buffer) => boolean) => () => {
    const bytes = canonicalBytes(record);
    if (sha256Hex(bytes) !== s.sha256 || !signatureOk(bytes)) throw new Error(`${name} check failed`);
  };
  const bareLoops = {
    // The target's floor: what anyone holding the public key alone does.
    bare: bareLoop('bare', (bytes) => ed25519Verify(null, bytes, publicKeyObject, signature)),
    // The same with the service's own check (keyring.verify: sign again and compare, then verify).
    keyholder: bareLoop('keyholder', (bytes) => keyring.verify('veritrack', bytes, s.ed25519Sig)),
  };
  const publicKey = Buffer.from(keyring.publicKey('veritrack').publicKeyHex, 'hex');
  const nobleRate = rate(() => {
    if (!ed25519.verify(signature, canonicalBytes(record), publicKey)) throw new Error('noble check failed');
  }, 1, 1000);

  const server = await spawnServer(new URL('./support/verify-server.ts', import.meta.url), { ATTESTATION_SECRET: SECRET });
  const bareKoa = await spawnServer(new URL('./support/bare-verify-server.ts', import.meta.url), { ATTESTATION_SECRET: SECRET });
  try {
    const query = `/v1/veritrack/verify?${new URLSearchParams({ kind: String(record.kind), attested_at: String(record.attestedAt), claim: JSON.stringify(claim), sha256: s.sha256, signature: s.ed25519Sig })}`;
    const servers = { service: server, koa: bareKoa };
    const roles = ['bare', 'keyholder', 'koa', 'service'] as const;
    // CPU time per call of each side in each round (a server's: all its threads; a bare loop's:
    // this process's), which leaves out the moments the machine gave the core to someone else.
    const cpuPerCall = Object.fromEntries(roles.map((role) => [role, [] as number[]])) as Record<(typeof roles)[number], number[]>;
    for (const warm of Object.values(servers)) await load({ url: warm.url, pathOf: () => query, concurrency: CONCURRENCY, maxRequests: 4000, maxSeconds: 3 });
    let requests = 0;
    // Side by side in short slices, round after round (bench/support/rounds.ts).
    const rates = await inRounds(roles, ROUNDS, async (role) => {
      if (role === 'bare' || role === 'keyholder') {
        const loop = onServerCore(() => loopRate(bareLoops[role], BARE_SECONDS));
        cpuPerCall[role].push(loop.cpuMicrosPerCall);
        return loop.perSecond;
      }
      const target = servers[role];
      const cpuBefore = cpuSecondsOf(target.child.pid!);
      const run = await load({ url: target.url, pathOf: () => query, concurrency: CONCURRENCY, maxRequests: 100_000, maxSeconds: SLICE_SECONDS });
      const cpuAfter = cpuSecondsOf(target.child.pid!);
      if (Object.keys(run.statuses).some((code) => code !== '200')) throw new Error(`unexpected statuses ${JSON.stringify(run.statuses)}`);
      if (cpuBefore !== undefined && cpuAfter !== undefined) cpuPerCall[role].push(((cpuAfter - cpuBefore) * 1e6) / run.requests);
      if (role === 'service') requests += run.requests;
      return run.perSecond;
    });
    const cpu = (role: (typeof roles)[number]) => (cpuPerCall[role].length ? `, ${median(cpuPerCall[role]).toFixed(0)} us CPU/call` : '');
    const serviceToBare = roundRatios(rates.service, rates.bare);
    console.log(`bare canonicalise+sha256+ed25519 verify (node:crypto, on the server's core): ${median(rates.bare).toFixed(0)}/s${cpu('bare')} (rounds: ${list(rates.bare)})`);
    console.log(`same with the service's check (sign again and compare): ${median(rates.keyholder).toFixed(0)}/s${cpu('keyholder')} (rounds: ${list(rates.keyholder)})`);
    console.log(`same with @noble/curves verify (reference):           ${nobleRate.toFixed(0)}/s`);
    console.log(`GET /v1/veritrack/verify over HTTP (1 server core):    ${median(rates.service).toFixed(0)}/s${cpu('service')} (rounds: ${list(rates.service)}; ${requests} requests)`);
    console.log(`the service's check on bare Koa (one handler, no framework): ${median(rates.koa).toFixed(0)}/s${cpu('koa')} (rounds: ${list(rates.koa)})`);
    console.log(`ratio HTTP / bare: ${serviceToBare.median.toFixed(2)} (target >= 0.6), median of the rounds' ${list(serviceToBare.ratios, 2)}`);
    // Calls a core can serve by CPU time are the inverse of CPU per call: bare's over the service's.
    if (cpuPerCall.service.length === ROUNDS) {
      const byCpu = roundRatios(cpuPerCall.bare, cpuPerCall.service);
      console.log(`same ratio by CPU time per call: ${byCpu.median.toFixed(2)}, median of the rounds' ${list(byCpu.ratios, 2)}`);
    }
    console.log(`ratio HTTP / bare with the service's check (what HTTP and the framework cost): ${roundRatios(rates.service, rates.keyholder).median.toFixed(2)}`);
    console.log(`ratio bare Koa / bare: ${roundRatios(rates.koa, rates.bare).median.toFixed(2)}; service / bare Koa: ${roundRatios(rates.service, rates.koa).median.toFixed(2)}`);
  } finally {
    await server.stop();
    await bareKoa.stop();
  }
}
