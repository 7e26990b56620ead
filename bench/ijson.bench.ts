import { parseIJson } from '../src/kernel/rfc7493.ts';

/**
 * The price of reading request bodies as I-JSON: nanoseconds per byte of plain JSON.parse and of
 * parseIJson (a linear scan, then JSON.parse) on bodies of 1 KiB, 64 KiB and 1 MiB, measured in
 * the same run. Per-byte cost must stay flat as bodies grow (linear), and its ratio to
 * JSON.parse says what the checks cost.
 */
function body(bytes: number): string {
  const rows: unknown[] = [];
  let text = '';
  for (let i = 0; text.length < bytes; i++) {
    rows.push({ id: i, name: `row ${i} \u00e9\u4e2d`, amount: '12.50', values: [i, i * 1.5, -i], ok: i % 2 === 0, nested: { a: { b: 'x'.repeat(i % 17) } } });
    if (i % 16 === 0) text = JSON.stringify({ kind: 'bench', claim: { rows } });
  }
  return JSON.stringify({ kind: 'bench', claim: { rows } });
}

function nsPerByte(text: string, run: (t: string) => unknown): number {
  const budgetMs = 400;
  let iterations = 0;
  const started = process.hrtime.bigint();
  let elapsed = 0n;
  do {
    run(text);
    iterations++;
    elapsed = process.hrtime.bigint() - started;
  } while (elapsed < BigInt(budgetMs) * 1_000_000n);
  return Number(elapsed) / iterations / text.length;
}

export default async function main(): Promise<void> {
  console.log('size       JSON.parse ns/B   I-JSON ns/B   ratio');
  for (const size of [1024, 64 * 1024, 1024 * 1024]) {
    const text = body(size);
    // Interleaved and repeated: the machine's speed drifts within seconds.
    const plain: number[] = [];
    const checked: number[] = [];
    for (let round = 0; round < 3; round++) {
      plain.push(nsPerByte(text, JSON.parse));
      checked.push(nsPerByte(text, parseIJson));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[1]!;
    const [p, c] = [median(plain), median(checked)];
    console.log(`${String(text.length).padEnd(10)} ${p.toFixed(2).padStart(15)} ${c.toFixed(2).padStart(13)} ${(c / p).toFixed(2).padStart(7)}`);
  }
}
