import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { openEventStore } from '../src/events/open-store.ts';
import { createLogger } from '../src/logger.ts';
import { paymentRequirements } from '../src/payments/x402/quote.ts';
import { startService } from '../src/service.ts';
import { presignPayments } from './support/paid-payments.ts';

/**
 * Paid calls per second over MCP (tools/call with the payment in _meta, JSON-RPC over Streamable
 * HTTP) beside paid calls over HTTP (PAYMENT-SIGNATURE), on one service with the durable file
 * log, interleaved in rounds of equal length, each call with its own pre-signed payment. The
 * load runs in the same process as the service (both sides pay for it alike), so the ratio is
 * the figure to read, not the absolute rates.
 */
const PATH = '/v1/veritrack/attest';
const ARGS = { kind: 'model-eval', claim: { model: 'example-7b', score: 0.81 } };
const CONCURRENCY = 16;
const ROUNDS = 4;
const SLICE_MS = 1_500;

export default async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'attest-bench-mcp-'));
  const settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ATTESTATION_SECRET: 'bench-mcp-secret-0123456789abcdef0123456789' });
  const log = createLogger(settings);
  const store = await openEventStore(settings, { info() {}, warn() {}, error() {} });
  const service = await startService(settings, store, log);
  try {
    const op = findOperation('veritrack.attest')!;
    const headers = presignPayments(paymentRequirements(op, settings), `${service.url}${PATH}`, 60_000);
    let next = 0;
    const take = () => headers[next++]!;
    const viaHttp = async () => {
      const res = await fetch(`${service.url}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': take() }, body: JSON.stringify(ARGS) });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      await res.arrayBuffer();
    };
    let id = 0;
    const viaMcp = async () => {
      const payment = JSON.parse(Buffer.from(take(), 'base64').toString('utf8')) as unknown;
      const res = await fetch(`${service.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'veritrack_attest', arguments: ARGS, _meta: { 'x402/payment': payment } } }),
      });
      const body = (await res.json()) as { result?: { isError?: boolean } };
      if (!body.result || body.result.isError) throw new Error(`MCP ${JSON.stringify(body).slice(0, 200)}`);
    };
    const slice = async (call: () => Promise<void>): Promise<number> => {
      let done = 0;
      const until = performance.now() + SLICE_MS;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (performance.now() < until) {
            await call();
            done++;
          }
        }),
      );
      return done / (SLICE_MS / 1000);
    };
    await slice(viaHttp);
    await slice(viaMcp);
    const http: number[] = [];
    const mcp: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        http.push(await slice(viaHttp));
        mcp.push(await slice(viaMcp));
      } else {
        mcp.push(await slice(viaMcp));
        http.push(await slice(viaHttp));
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratios = http.map((h, i) => mcp[i]! / h);
    console.log(`paid calls/s over HTTP, per round: ${http.map((r) => r.toFixed(0)).join(', ')}`);
    console.log(`paid tool calls/s over MCP, per round: ${mcp.map((r) => r.toFixed(0)).join(', ')}`);
    console.log(`MCP / HTTP, median of rounds: ${median(ratios).toFixed(2)} (a tool call is a JSON-RPC request with a new stateless MCP server per call, beside the same gateway and saga)`);
  } finally {
    await service.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
