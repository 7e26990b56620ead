import type { ChainRule } from '../../../kernel/audit-rule.ts';
import type { AuditFailure } from '../../../kernel/audit-failure.ts';
import { verifyMemoryChain, type MemoryVersion } from './chain.ts';
import { MEMORY_EVENT_TYPES, MEMORY_STREAM_PREFIX, parseMemoryEvent, type MemoryEvent } from './events.ts';
import type { RecordedEvent } from '../../../events/port.ts';
import { memoryStreamName } from './commands.ts';

const KIND = 'chain:memory';

/**
 * The audit of one memory stream, pure: it opens with exactly one MemoryStoreOpened, its name
 * is the hash of its (agent_id, key), and its versions form an unbroken chain whose every
 * valueSha256 and stateHash recomputes (verifyMemoryChain).
 */
export function checkMemoryChain(events: readonly RecordedEvent[]): AuditFailure[] {
  const failures: AuditFailure[] = [];
  const at = (event: RecordedEvent, message: string): AuditFailure => ({
    kind: KIND,
    stream: event.stream,
    position: event.position,
    revision: event.revision,
    eventId: event.id,
    message,
  });
  const versions: MemoryVersion[] = [];
  const versionEvents: RecordedEvent[] = [];
  events.forEach((event, index) => {
    let parsed: MemoryEvent;
    try {
      parsed = parseMemoryEvent(event);
    } catch (err) {
      failures.push(at(event, `unreadable memory event: ${(err as Error).message.split('\n')[0]}`));
      return;
    }
    if (parsed.type === MEMORY_EVENT_TYPES.opened) {
      if (index !== 0) failures.push(at(event, 'MemoryStoreOpened is not the first event of the stream'));
    } else {
      if (index === 0) failures.push(at(event, 'the stream does not open with MemoryStoreOpened (no owner recorded)'));
      const { paymentId: _paymentId, ...version } = parsed.data;
      versions.push(version as MemoryVersion);
      versionEvents.push(event);
    }
    const expectedStream = memoryStreamName(parsed.data.agent_id, parsed.data.key);
    if (event.stream !== expectedStream) failures.push(at(event, `stream name does not match its (agent_id, key): expected ${expectedStream}`));
  });
  for (const problem of verifyMemoryChain(versions)) failures.push(at(versionEvents[problem.index]!, problem.message));
  return failures;
}

export const memoryChainRule: ChainRule = {
  name: 'memory',
  appliesTo: (stream) => stream.startsWith(MEMORY_STREAM_PREFIX),
  check: checkMemoryChain,
};
