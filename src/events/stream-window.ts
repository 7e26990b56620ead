import type { ReadStreamOptions, RecordedEvent } from './port.ts';

/** The events of a whole stream (in revision order) that a read with `options` answers, as EventStore.readStream does. */
export function streamWindow(events: readonly RecordedEvent[], options: ReadStreamOptions): RecordedEvent[] {
  const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
  const inWindow =
    options.direction === 'backwards'
      ? events.filter((e) => e.revision <= (options.fromRevision ?? BigInt(events.length - 1))).reverse()
      : events.filter((e) => e.revision >= (options.fromRevision ?? 0n));
  const window = inWindow.slice(0, max);
  if (options.maxBytes === undefined) return window;
  const taken = window.slice(0, takenWithin(window.length, (i) => dataSize(window[i]!), options.maxBytes));
  return taken.length < window.length ? taken : markWholeWindow(taken);
}

/**
 * How many of `count` events (the size of the i-th in the read's order: `sizeAt(i)`, asked only
 * of those looked at) a read bounded by `maxBytes` takes: while those taken hold fewer than
 * maxBytes, so at least one, and the first that reaches it.
 */
export function takenWithin(count: number, sizeAt: (i: number) => number, maxBytes: number): number {
  let held = 0;
  let taken = 0;
  while (taken < count && (taken === 0 || held < maxBytes)) held += sizeAt(taken++);
  return taken;
}

/** An event's size as a store that keeps events parsed measures it: its data's JSON. */
export function dataSize(event: RecordedEvent): number {
  return JSON.stringify(event.data).length;
}

/**
 * Reads bounded by ReadStreamOptions.maxBytes that hold their whole window: the bound cut
 * nothing (a store marks the array it answers). The mark says what is safe to skip, so a mark
 * lost (a wrapper answering a copy) costs a reader paging through a stream one read more, and
 * never a page missed.
 */
const wholeWindows = new WeakSet<readonly RecordedEvent[]>();

export function markWholeWindow(events: RecordedEvent[]): RecordedEvent[] {
  wholeWindows.add(events);
  return events;
}

/** Whether a read holds its whole window: maxBytes cut nothing, and no event of its window lies after its last. */
export function heldWholeWindow(events: readonly RecordedEvent[]): boolean {
  return wholeWindows.has(events);
}
