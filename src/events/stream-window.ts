import type { ReadStreamOptions, RecordedEvent } from './port.ts';

/** The events of a whole stream (in revision order) that a read with `options` answers, as EventStore.readStream does. */
export function streamWindow(events: readonly RecordedEvent[], options: ReadStreamOptions, sizeOf: (event: RecordedEvent) => number = dataSize): RecordedEvent[] {
  const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
  const inWindow =
    options.direction === 'backwards'
      ? events.filter((e) => e.revision <= (options.fromRevision ?? BigInt(events.length - 1))).reverse()
      : events.filter((e) => e.revision >= (options.fromRevision ?? 0n));
  const window = inWindow.slice(0, max);
  if (options.maxBytes === undefined) return window;
  const taken = window.slice(0, takenWithin(window.length, (i) => sizeOf(window[i]!), options.maxBytes));
  return taken.length < window.length ? markCutShort(taken) : taken;
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

/** Reads that ReadStreamOptions.maxBytes cut short of their window (a store marks the array it answers). */
const cutShort = new WeakSet<readonly RecordedEvent[]>();

export function markCutShort(events: RecordedEvent[]): RecordedEvent[] {
  cutShort.add(events);
  return events;
}

/** Whether a read was cut short by its maxBytes: its window goes on after its last event. */
export function wasCutShort(events: readonly RecordedEvent[]): boolean {
  return cutShort.has(events);
}
