import { pricedOperations } from '../src/catalog/index.ts';
import { MAX_JSON_BODY_BYTES } from '../src/kernel/limits.ts';
import { checkBeforeQuote, type PricedOperation } from '../src/kernel/operation.ts';
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
 * Then every array of the example grown to the most items its schema and the 1 MiB body limit
 * accept, its items repeated: a manifest repeating one tool name 4,323 times once ran the threat
 * model out of memory. ADVERSARIAL_TRACE=1 names each input on stderr before it runs, with the
 * heap: a run that ends the process (out of memory, as a 100,000-character word in a PDF once
 * did) says which it was.
 */
// Lines repeated too: an invoice of one-line items, a filing of item headings (each counted its
// code points from the start of the text, minutes at 500,000 characters; now counted on).
const RUNS = ['a', '1', ' ', 'a ', '1 ', 'a.', '1-', '<div>', '((', '[', '{"a":', '> ', '- ', '*a', 'a\n=\n\n', '@', '\n', 'Widget 1 2.00 2.00\n', 'PART I\nItem 1. A\n'];
const SHOWN = 12;
const SHORTEST_RUN = 10_000;
/** Arrays the schema caps below this are left out: they cannot make a call costly. */
const SHORTEST_ARRAY = 100;

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

function arrayPaths(value: JsonValue, path: Path = []): Path[] {
  const here = Array.isArray(value) && value.length > 0 ? [path] : [];
  const children: Array<[string | number, JsonValue]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : value !== null && typeof value === 'object' ? Object.entries(value) : [];
  return [...here, ...children.flatMap(([key, child]) => arrayPaths(child, [...path, key]))];
}

/** The example with the array at `path` holding `count` items, its own items repeated in turn. */
function withArrayAt(example: JsonValue, path: Path, count: number): JsonValue {
  const copy = structuredClone(example);
  const array = path.reduce<JsonValue>((at, key) => (at as Record<string, JsonValue>)[key]!, copy) as JsonValue[];
  const items = array.splice(0);
  for (let i = 0; i < count; i++) array.push(structuredClone(items[i % items.length]!));
  return copy;
}

/** The largest size in [0, max] that `accepts` takes (0 when even a small one is refused). */
function largestAccepted(accepts: (size: number) => boolean, max: number): number {
  let [low, high] = [0, max];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (accepts(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

const runOf = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** The longest run of `unit` the schema accepts at `path`. */
const longestAccepted = (op: PricedOperation, example: JsonValue, path: Path, unit: string) =>
  largestAccepted((length) => op.input.safeParse(withStringAt(example, path, runOf(unit, length))).success, 2_000_000);

/** The most items the schema and the body limit accept in the array at `path`. */
const mostItemsAccepted = (op: PricedOperation, example: JsonValue, path: Path) =>
  largestAccepted((count) => {
    const raw = withArrayAt(example, path, count);
    return JSON.stringify(raw).length <= MAX_JSON_BODY_BYTES && op.input.safeParse(raw).success;
  }, 200_000);

interface Timing {
  /** What the call held the event loop for (the loop's active time): an engine thread's work is not in it. */
  loopMs: number;
  wallMs: number;
}

/** What the command takes on this input, or undefined when it is refused before the quote. */
async function commandMs(op: PricedOperation, raw: JsonValue): Promise<Timing | undefined> {
  const input = op.input.parse(raw);
  const ctx = testCallContext();
  const { refusal, handoff } = await checkBeforeQuote(op, input, ctx, ctx.now);
  if (refusal) return undefined;
  const loopBefore = performance.eventLoopUtilization();
  const started = performance.now();
  await op.command!.execute(input, ctx, handoff).catch(() => undefined);
  const wallMs = performance.now() - started;
  // The loop's active time counts from its last idle moment; the call's own share is its run on the loop.
  return { loopMs: Math.min(wallMs, performance.eventLoopUtilization(loopBefore).active), wallMs };
}

type Row = { op: string; input: string; ms: number; wallMs: number; exampleMs: number };

/** Every long input of one operation that is accepted before the quote, with its time. */
function* longInputs(op: PricedOperation, example: JsonValue): Generator<{ input: string; raw: JsonValue }> {
  for (const path of stringPaths(example)) {
    for (const unit of RUNS) {
      const length = longestAccepted(op, example, path, unit);
      if (length >= SHORTEST_RUN) yield { input: `${path.join('.')} = ${JSON.stringify(unit)} x ${length.toLocaleString('en')} characters`, raw: withStringAt(example, path, runOf(unit, length)) };
    }
  }
  for (const path of arrayPaths(example)) {
    const count = mostItemsAccepted(op, example, path);
    if (count >= SHORTEST_ARRAY) yield { input: `${path.join('.')} = ${count.toLocaleString('en')} items`, raw: withArrayAt(example, path, count) };
  }
}

export default async function run(): Promise<void> {
  const rows: Row[] = [];
  const started = performance.now();
  for (const op of pricedOperations().filter((o) => o.command && o.inputFrom === 'json')) {
    const example = JSON.parse(JSON.stringify(op.example)) as JsonValue;
    await commandMs(op, example); // loads the engine
    const exampleMs = (await commandMs(op, example))?.loopMs ?? 0;
    for (const { input, raw } of longInputs(op, example)) {
      if (process.env['ADVERSARIAL_TRACE']) process.stderr.write(`${op.id} ${input} heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB\n`);
      const timing = await commandMs(op, raw);
      if (timing) rows.push({ op: op.id, input, ms: timing.loopMs, wallMs: timing.wallMs, exampleMs });
    }
  }
  rows.sort((a, b) => b.ms - a.ms);
  console.log(`${rows.length} long inputs accepted before the quote, run in ${((performance.now() - started) / 1000).toFixed(0)} s; those that held the event loop longest:`);
  for (const r of rows.slice(0, SHOWN))
    console.log(`  ${r.ms.toFixed(0).padStart(6)} ms  ${(r.ms / Math.max(r.exampleMs, 0.01)).toFixed(0).padStart(7)}x the example  ${r.op} ${r.input}`);
  const slowest = [...rows].sort((a, b) => b.wallMs - a.wallMs).slice(0, 3);
  console.log('the longest in wall time (an engine thread\'s work included):');
  for (const r of slowest) console.log(`  ${r.wallMs.toFixed(0).padStart(6)} ms wall, ${r.ms.toFixed(0)} ms on the loop  ${r.op} ${r.input}`);
}
