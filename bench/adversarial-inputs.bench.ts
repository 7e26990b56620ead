import { pricedOperations } from '../src/catalog/index.ts';
import { refusalBeforeQuote, type PricedOperation } from '../src/kernel/operation.ts';
import type { JsonValue } from '../src/signing/rfc8785.ts';
import { testCallContext } from '../test/support/call-context.ts';

/**
 * What one paid call can cost the event loop: every operation that takes JSON, run on its
 * catalogue example with one string member replaced by a long run of one kind of character (the
 * longest its schema accepts), each run beside the example itself in the same process. Parsers
 * and patterns that are quadratic on some shape show here as seconds: micromark on nested lists,
 * htmlparser2 on nested elements, an e-mail pattern on a run of address characters (all now
 * refused before the quote or made linear). Prints the slowest runs and their ratio to the
 * example's own time. The commands run in this process, not over HTTP: the cost is the engine's.
 * ADVERSARIAL_TRACE=1 names each input on stderr before it runs, with the heap: a run that ends
 * the process (out of memory, as a 100,000-character word in a PDF once did) says which it was.
 */
const RUNS = ['a', '1', ' ', 'a ', '1 ', 'a.', '1-', '<div>', '((', '[', '{"a":', '> ', '- ', '*a', 'a\n=\n\n', '@', '\n'];
const SHOWN = 12;
const SHORTEST_RUN = 10_000;

type Path = Array<string | number>;

function stringPaths(value: JsonValue, path: Path = []): Path[] {
  if (typeof value === 'string') return [path];
  const children: Array<[string | number, JsonValue]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : value !== null && typeof value === 'object' ? Object.entries(value) : [];
  return children.flatMap(([key, child]) => stringPaths(child, [...path, key]));
}

function withStringAt(example: JsonValue, path: Path, text: string): JsonValue {
  const copy = structuredClone(example);
  const parent = path.slice(0, -1).reduce<JsonValue>((at, key) => (at as Record<string, JsonValue>)[key]!, copy);
  (parent as Record<string, JsonValue>)[path.at(-1)!] = text;
  return copy;
}

/** The longest run of `unit` the schema accepts at `path` (0 when even a short one is refused). */
function longestAccepted(op: PricedOperation, example: JsonValue, path: Path, unit: string): number {
  const accepts = (length: number) => op.input.safeParse(withStringAt(example, path, unit.repeat(Math.ceil(length / unit.length)).slice(0, length))).success;
  let [low, high] = [0, 2_000_000];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (accepts(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Milliseconds the command takes on this input, or undefined when it is refused before the quote. */
async function commandMs(op: PricedOperation, raw: JsonValue): Promise<number | undefined> {
  const input = op.input.parse(raw);
  const ctx = testCallContext();
  if (await refusalBeforeQuote(op, input, ctx, ctx.now)) return undefined;
  const started = performance.now();
  await op.command!.execute(input, ctx).catch(() => undefined);
  return performance.now() - started;
}

export default async function run(): Promise<void> {
  const rows: Array<{ op: string; path: string; unit: string; length: number; ms: number; exampleMs: number }> = [];
  const started = performance.now();
  for (const op of pricedOperations().filter((o) => o.command && o.inputFrom === 'json')) {
    const example = JSON.parse(JSON.stringify(op.example)) as JsonValue;
    await commandMs(op, example); // loads the engine
    const exampleMs = (await commandMs(op, example)) ?? 0;
    for (const path of stringPaths(example)) {
      for (const unit of RUNS) {
        const length = longestAccepted(op, example, path, unit);
        if (length < SHORTEST_RUN) continue;
        if (process.env['ADVERSARIAL_TRACE']) process.stderr.write(`${op.id} ${path.join('.')} ${JSON.stringify(unit)} ${length} heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB\n`);
        const ms = await commandMs(op, withStringAt(example, path, unit.repeat(Math.ceil(length / unit.length)).slice(0, length)));
        if (ms !== undefined) rows.push({ op: op.id, path: path.join('.'), unit, length, ms, exampleMs });
      }
    }
  }
  rows.sort((a, b) => b.ms - a.ms);
  console.log(`${rows.length} long inputs accepted before the quote, run in ${((performance.now() - started) / 1000).toFixed(0)} s; the slowest:`);
  for (const r of rows.slice(0, SHOWN))
    console.log(`  ${r.ms.toFixed(0).padStart(6)} ms  ${(r.ms / Math.max(r.exampleMs, 0.01)).toFixed(0).padStart(7)}x the example  ${r.op} ${r.path} = ${JSON.stringify(r.unit)} x ${r.length.toLocaleString('en')} characters`);
}
