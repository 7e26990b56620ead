import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { paymentRequirements } from '../src/payments/x402/quote.ts';
import { longestHealthWait } from './support/health-wait.ts';
import { median } from './support/load.ts';
import { presignPayments } from './support/paid-payments.ts';
import { stopWithin } from './support/paid-slices.ts';
import { onLoadCore, spawnServer } from './support/spawn-server.ts';

/**
 * What one paid call with a very large signed record holds the event loop for, seen as another
 * caller sees it: the service as `npm start` runs it (compiled, local settlement, durable file
 * log), one such call at a time, while a second client asks GET /health again as soon as each
 * answer arrives. The longest a /health call waited during the paid call is how long everyone
 * else waited. The cases are the largest records the schemas accept on engine threads:
 * dependency risk over 20,000 purls each affected by 8 advisories (an 11 MB answer) and
 * translate-doc over 100,000 one-character lines (about 10 MB).
 * LARGE_RECORD_CALLS sets the paid calls per case (default 5).
 */
const CALLS = Number(process.env['LARGE_RECORD_CALLS'] ?? 5);

const CASES = [
  { name: 'dependency-risk, 20,000 purls', id: 'security.dependency-risk', body: { purls: Array.from({ length: 20_000 }, (_, i) => `pkg:golang/golang.org/x/net@v0.0.${i}`) } },
  { name: 'translate-doc, 100,000 lines', id: 'utils.translate-doc', body: { text: 'a\n'.repeat(100_000), source_lang: 'en', target_lang: 'de' } },
];

interface Answer {
  status: number;
  bytes: number;
}

function post(url: URL, body: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => counted(res, resolve));
    req.on('error', reject);
    req.end(body);
  });
}

function counted(res: IncomingMessage, resolve: (answer: Answer) => void): void {
  let bytes = 0;
  res.on('data', (chunk: Buffer) => (bytes += chunk.length));
  res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
}

export default function run(): Promise<void> {
  return onLoadCore(measure);
}

async function measure(): Promise<void> {
  const settings = loadSettings({ DATA_DIR: tmpdir(), LOG_LEVEL: 'silent' });
  const server = await spawnServer(new URL('./support/paid-server.ts', import.meta.url), { PAID_CALL_BENCH_SERVER: 'full', ATTESTATION_SECRET: 'bench-attestation-secret-0123456789abcdef' });
  try {
    for (const c of CASES) {
      const op = findOperation(c.id);
      if (!op || op.kind !== 'priced') throw new Error(`no priced operation ${c.id}`);
      const url = new URL(op.path, server.url);
      const payments = presignPayments(paymentRequirements(op, settings), `http://127.0.0.1${op.path}`, CALLS + 1);
      const body = JSON.stringify(c.body);
      // The first call loads the engine on its thread: not counted.
      await post(url, body, { 'PAYMENT-SIGNATURE': payments[0]! });
      const holds: number[] = [];
      const walls: number[] = [];
      let answer: Answer | undefined;
      for (let i = 1; i <= CALLS; i++) {
        const started = performance.now();
        const call = post(url, body, { 'PAYMENT-SIGNATURE': payments[i]! });
        holds.push(await longestHealthWait(server.url, call));
        answer = await call;
        walls.push(performance.now() - started);
        if (answer.status !== 200) throw new Error(`${c.id} answered ${answer.status}`);
      }
      const list = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
      console.log(`  ${c.name}: body ${(body.length / 1e3).toFixed(0)} KB, answer ${(answer!.bytes / 1e6).toFixed(2)} MB`);
      console.log(`    longest /health wait per call: median ${median(holds).toFixed(0)} ms (calls ${list(holds)})`);
      console.log(`    paid call, wall: median ${median(walls).toFixed(0)} ms (calls ${list(walls)})`);
    }
  } finally {
    await stopWithin(server, 10);
  }
}
