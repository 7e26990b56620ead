import { randomUUID } from 'node:crypto';
import { nextVersion, type MemoryVersion } from './chain.ts';
import { legacyMemoryStreamName, MEMORY_EVENT_TYPES } from './events.ts';
import type { EventStore } from '../../../events/port.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';

/**
 * A store as the service wrote it before stores were scoped to their payer: the legacy stream of
 * (agent_id, key), opened by `owner`, its versions of ruleset 1 (no owner member, and none in
 * what their stateHash covers). Returns the versions as they were signed.
 */
export async function writeLegacyMemoryStore(events: EventStore, owner: string, store: { agent_id: string; key: string }, values: JsonValue[]): Promise<MemoryVersion[]> {
  const versions: MemoryVersion[] = [];
  for (const [i, value] of values.entries()) {
    const { owner: _owner, stateHash: _stateHash, ...unowned } = nextVersion(versions.at(-1), { owner, ...store, value, writtenAt: 1_767_000_000 + i });
    versions.push({ ...unowned, stateHash: canonicalSha256(unowned) });
  }
  const opened = { id: randomUUID(), type: MEMORY_EVENT_TYPES.opened, data: { ...store, owner: owner.toLowerCase(), openedAt: 1_767_000_000, paymentId: 'payment-legacy-0' } };
  const written = versions.map((v, i) => ({ id: randomUUID(), type: MEMORY_EVENT_TYPES.versionWritten, data: { ...v, paymentId: `payment-legacy-${i}` } }));
  await events.appendToStream(legacyMemoryStreamName(store.agent_id, store.key), [opened, ...written]);
  return versions;
}
