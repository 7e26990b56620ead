import type { ReadStreamOptions, RecordedEvent } from './port.ts';

/** The events of a whole stream (in revision order) that a read with `options` answers, as EventStore.readStream does. */
export function streamWindow(events: readonly RecordedEvent[], options: ReadStreamOptions): RecordedEvent[] {
  const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
  if (options.direction === 'backwards') {
    const from = options.fromRevision ?? BigInt(events.length - 1);
    return events.filter((e) => e.revision <= from).reverse().slice(0, max);
  }
  const from = options.fromRevision ?? 0n;
  return events.filter((e) => e.revision >= from).slice(0, max);
}
