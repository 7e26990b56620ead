import type { ChainRule } from '../../../kernel/audit-rule.ts';
import type { AuditFailure } from '../../../kernel/audit-failure.ts';
import { verifyMemoryChain, type MemoryVersion } from './chain.ts';
import { legacyMemoryStreamName, MEMORY_EVENT_TYPES, MEMORY_STREAM_PREFIX, memoryStreamName, parseMemoryEvent, type MemoryEvent } from './events.ts';
import type { RecordedEvent } from '../../../events/port.ts';

const KIND = 'chain:memory';

/**
 * The audit of one memory stream, pure: it opens with exactly one MemoryStoreOpened naming its
 * owner; its name is the owner's stream of its (agent_id, key), or the legacy one of the
 * (agent_id, key) alone (stores opened before they were scoped to their payer); every version
 * names that owner, which only a legacy stream's versions written before then may leave out;
 * and its versions form an unbroken chain whose every valueSha256 and stateHash recomputes
 * (verifyMemoryChain).
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
  let owner: string | undefined;
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
      else owner = parsed.data.owner;
    } else {
      if (index === 0) failures.push(at(event, 'the stream does not open with MemoryStoreOpened (no owner recorded)'));
      const { paymentId: _paymentId, ...version } = parsed.data;
      versions.push(version as MemoryVersion);
      versionEvents.push(event);
      const ownerProblem = versionOwnerProblem(event.stream, owner, version.owner);
      if (ownerProblem) failures.push(at(event, ownerProblem));
    }
    const streamProblem = streamNameProblem(event.stream, owner, parsed.data.agent_id, parsed.data.key);
    if (streamProblem) failures.push(at(event, streamProblem));
  });
  for (const problem of verifyMemoryChain(versions)) failures.push(at(versionEvents[problem.index]!, problem.message));
  return failures;
}

/** A stream is named after its owner and (agent_id, key), or is a legacy stream named after the (agent_id, key) alone. */
function streamNameProblem(stream: string, owner: string | undefined, agentId: string, key: string): string | undefined {
  const legacy = legacyMemoryStreamName(agentId, key);
  if (stream === legacy) return undefined;
  if (owner === undefined) return `stream name does not match its (agent_id, key): expected ${legacy}`;
  const expected = memoryStreamName(owner, agentId, key);
  return stream === expected ? undefined : `stream name does not match its owner and (agent_id, key): expected ${expected} (or ${legacy} for a store opened before stores were scoped to their payer)`;
}

/** A version names the stream's owner; in a legacy stream, a version written before stores were scoped to their payer names none. */
function versionOwnerProblem(stream: string, owner: string | undefined, versionOwner: string | undefined): string | undefined {
  if (versionOwner === undefined) return isLegacyStreamName(stream) ? undefined : 'the version names no owner (ruleset 1) in a stream named after its owner';
  if (owner !== undefined && versionOwner !== owner) return `the version names owner ${versionOwner}, but the store was opened by ${owner}`;
  return undefined;
}

const LEGACY_NAME = new RegExp(`^${MEMORY_STREAM_PREFIX}[0-9a-f]{64}$`);
const isLegacyStreamName = (stream: string): boolean => LEGACY_NAME.test(stream);

export const memoryChainRule: ChainRule = {
  name: 'memory',
  appliesTo: (stream) => stream.startsWith(MEMORY_STREAM_PREFIX),
  check: checkMemoryChain,
};
