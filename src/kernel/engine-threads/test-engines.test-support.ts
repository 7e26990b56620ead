import { threadId } from 'node:worker_threads';
import { DomainRefusal } from '../decider.ts';

/** Engines for the pool's tests, run on its threads. */

export const sum = (a: number, b: number): number => a + b;

export async function bytesOf(text: string): Promise<{ text: string; bytes: Uint8Array }> {
  await new Promise((r) => setTimeout(r, 1));
  return { text, bytes: new TextEncoder().encode(text) };
}

export function refuse(): never {
  throw new DomainRefusal(422, 'too_many_rows', 'the table has too many rows', 'INVALID-INPUT');
}

export function fail(): never {
  throw new TypeError('the engine broke');
}

/** Keeps allocating until the thread's heap is gone. */
export function exhaustHeap(): number {
  const kept: string[][] = [];
  for (;;) kept.push(Array.from({ length: 100_000 }, (_, i) => `row ${i} of ${kept.length}`));
}

/** Holds its thread for `ms`, without the event loop of the service noticing. */
export function busyFor(ms: number): number {
  const until = Date.now() + ms;
  let spins = 0;
  while (Date.now() < until) spins++;
  return spins;
}

/** Never answers, as a loop an input or a bug sends an engine into: only ending its thread stops it. */
export function spinForever(): never {
  for (;;) busyFor(1_000);
}

/** The thread that ran it, after holding that thread for `ms`: two at once on two threads answer two ids. */
export function threadAfter(ms: number): number {
  busyFor(ms);
  return threadId;
}

const ballast: string[][] = [];
/** Keeps about `mb` MB in the thread's heap for good, as a loaded engine's modules do. */
export function holdBallast(mb: number): number {
  for (let i = 0; i < mb; i++) ballast.push(Array.from({ length: 16_000 }, (_, j) => `ballast ${i} ${j}`));
  return ballast.length;
}

/** Needs about `mb` MB at once, then lets it go. */
export function allocate(mb: number): number {
  const held: string[][] = [];
  for (let i = 0; i < mb; i++) held.push(Array.from({ length: 16_000 }, (_, j) => `held ${i} ${j}`));
  return held.length;
}

/** A command's result whose record holds `items` members: large enough that its canonical bytes are not a view into Buffer's shared pool. */
export function resultOf(items: number): { record: Record<string, unknown>; beside: { note: string } } {
  const record: Record<string, unknown> = { kind: 'test', 'é': 'ünïcode', nested: { b: 1, a: [0.1, -0, 1e21] } };
  for (let i = items; i > 0; i--) record[`item-${i}`] = { text: `item ${i}`, n: i };
  return { record, beside: { note: 'not signed' } };
}

/** A value with no record to canonicalise. */
export const noRecord = (): { value: number } => ({ value: 1 });
