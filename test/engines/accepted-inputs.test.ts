import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pricedOperations } from '../../src/catalog/index.ts';
import { DomainRefusal } from '../../src/kernel/decider.ts';
import { checkBeforeQuote, type PricedOperation } from '../../src/kernel/operation.ts';
import { canonicalBytes, type JsonValue } from '../../src/signing/rfc8785.ts';
import { testCallContext } from '../support/call-context.ts';

/**
 * A paid call runs its command after the payment is settled: an input the schema accepts that
 * then throws in the engine is a 500 to a caller who has paid. So, for every operation that takes
 * JSON, inputs made by changing one to three values of its catalogue example (to edge strings and
 * numbers, values of other kinds, arrays emptied, cut or doubled, members dropped) go through what the HTTP layer does
 * before the quote (schema, prechecks) and, when accepted, through the command itself, which
 * must give a record that canonicalises or refuse with a DomainRefusal, and never throw anything
 * else.
 */
const RUNS_PER_OPERATION = 100;

const EDGE_STRINGS = ['', ' ', '0', '-1', '1e999', 'NaN', 'null', 'true', '2026-02-30', '2026-13-01T25:61:00Z', '0x', '0xzz', '\u0000', '\ud83d\ude00', 'é'.normalize('NFD'), '../../etc/passwd', '<script>', 'a'.repeat(5_000), '\n\n\n', '{"a":1}'];
const EDGE_NUMBERS = [0, -0, -1, 1, 0.5, -0.5, 1e-7, 1e21, 2 ** 53 - 1, -(2 ** 53 - 1), 1.7976931348623157e308, 100, 101, 255, 256];

const anyJson: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(null, true, false, [], {}, ...EDGE_STRINGS, ...EDGE_NUMBERS),
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
);

function sameKind(value: JsonValue): fc.Arbitrary<JsonValue> {
  if (typeof value === 'string')
    return fc.oneof(fc.constantFrom(...EDGE_STRINGS), fc.string(), fc.string({ unit: 'grapheme' }), fc.constant(value.toUpperCase()), fc.constant(`${value}${value}`), fc.constant(value.slice(0, Math.floor(value.length / 2))));
  if (typeof value === 'number') return fc.oneof(fc.constantFrom(...EDGE_NUMBERS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(-value), fc.constant(value * 1000));
  if (typeof value === 'boolean') return fc.constant(!value);
  return anyJson;
}

type Path = Array<string | number>;
type Mutation = { path: Path; to: JsonValue } | { path: Path; drop: true };

/** Every value inside `value` (the root excluded), with its path. */
function valuesIn(value: JsonValue, path: Path = []): Array<{ path: Path; value: JsonValue }> {
  const children: Array<[string | number, JsonValue]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : value !== null && typeof value === 'object' ? Object.entries(value) : [];
  return children.flatMap(([key, child]) => [{ path: [...path, key], value: child }, ...valuesIn(child, [...path, key])]);
}

/** One change to the value at `path`: another of its kind, another kind, an array reshaped, or the member dropped. */
function mutationOf({ path, value }: { path: Path; value: JsonValue }): fc.Arbitrary<Mutation> {
  const to = (arbitrary: fc.Arbitrary<JsonValue>) => arbitrary.map((v): Mutation => ({ path, to: v }));
  const reshaped = Array.isArray(value) ? [to(fc.constantFrom<JsonValue>([], [...value, ...value], value.slice(1), value.slice(0, -1)))] : [];
  return fc.oneof(to(sameKind(value)), to(anyJson), fc.constant<Mutation>({ path, drop: true }), ...reshaped);
}

function applied(example: JsonValue, mutations: Mutation[]): JsonValue {
  const copy = structuredClone(example);
  for (const mutation of mutations) {
    const parent = mutation.path.slice(0, -1).reduce<JsonValue | undefined>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, JsonValue>)[key] : undefined), copy);
    const key = mutation.path.at(-1)!;
    if (parent === null || typeof parent !== 'object' || !(key in parent)) continue;
    if ('to' in mutation) (parent as Record<string, JsonValue>)[key] = mutation.to;
    else if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete (parent as Record<string, JsonValue>)[key];
  }
  return copy;
}

/** The example with one to three of its values changed. */
function mutated(example: JsonValue): fc.Arbitrary<JsonValue> {
  const values = valuesIn(example);
  if (values.length === 0) return fc.constant(example);
  return fc.array(fc.constantFrom(...values).chain(mutationOf), { minLength: 1, maxLength: 3 }).map((mutations) => applied(example, mutations));
}

/**
 * What the HTTP layer does before the quote: the refusal, or the input it would quote and run
 * with what the prechecks handed its command.
 */
async function beforeQuote(op: PricedOperation, input: unknown, ctx: ReturnType<typeof testCallContext>): Promise<{ refused: string } | { parsed: unknown; handoff: unknown }> {
  const parsed = op.input.safeParse(input);
  if (!parsed.success) return { refused: 'schema' };
  const { refusal, handoff } = await checkBeforeQuote(op, parsed.data, ctx, ctx.now);
  if (refusal) return { refused: refusal.error };
  const forbidden = await op.command!.authorize?.(parsed.data, ctx);
  return forbidden ? { refused: forbidden.error } : { parsed: parsed.data, handoff };
}

const operations = pricedOperations().filter((op) => op.command && op.inputFrom === 'json');

describe('every input an operation accepts before the quote runs to a record or a refusal, never an error', () => {
  it('covers the operations that take JSON', () => {
    expect(operations.length).toBeGreaterThanOrEqual(35);
  });

  /** Operation id -> how many of its inputs reached the command. */
  const reached = new Map<string, number>();

  it.each(operations.map((op) => [op.id, op] as const))('%s', async (_id, op) => {
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(mutated(JSON.parse(JSON.stringify(op.example)) as JsonValue), async (input) => {
        const ctx = testCallContext();
        const checked = await beforeQuote(op, input, ctx);
        if ('refused' in checked) return;
        ran++;
        try {
          const { record } = await op.command!.execute(checked.parsed, ctx, checked.handoff);
          canonicalBytes(record);
        } catch (err) {
          if (err instanceof DomainRefusal) return;
          throw new Error(`${op.id} threw after accepting ${JSON.stringify(input).slice(0, 2_000)}: ${(err as Error).stack}`, { cause: err });
        }
      }),
      { numRuns: RUNS_PER_OPERATION, seed: 20261126 },
    );
    reached.set(op.id, ran);
  }, 120_000);

  it('reaches the commands, not only the schemas\' refusals', () => {
    // A strict schema refuses most changes of a small example (an id list), and an example that
    // needs earlier state (a lease to settle) is refused as it is: counted over all operations.
    const total = [...reached.values()].reduce((sum, n) => sum + n, 0);
    expect(reached.size).toBe(operations.length);
    expect(total).toBeGreaterThan(operations.length * RUNS_PER_OPERATION * 0.25);
    expect([...reached.values()].filter((n) => n > 0).length).toBeGreaterThanOrEqual(operations.length - 4);
  });
});
