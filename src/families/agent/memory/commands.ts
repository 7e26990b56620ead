import type { CallContext, Command } from '../../../kernel/operation.ts';
import { MEMORY_CHAIN_RULESET, rulesetOf, type MemoryVersion } from './chain.ts';
import { legacyMemoryStreamName, MEMORY_EVENT_TYPES, memoryStoreOpenedSchema, memoryStreamName, parseMemoryEvent } from './events.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { eventAt, handleCommand, loadState } from '../../../kernel/decider.ts';
import { assertOwnStore, latestVersion, memoryDecider, versionNumbered, versionWrittenBy, type MemoryState, type VersionPlace } from './decider.ts';

export interface MemoryPutInput {
  agent_id: string;
  key: string;
  value: JsonValue;
}

export interface MemoryGetInput {
  agent_id: string;
  key: string;
  version?: number | undefined;
}

/**
 * The stream of the payer's store of (agent_id, key): its own stream, unless it has none yet
 * and the store this payer opened before stores were scoped to their payer is in the legacy
 * stream; then that one, read and extended in place so that its chain goes on unbroken. Once
 * the payer's own stream has an event the legacy one is not looked at; no new legacy stream is
 * ever opened, so the choice never changes for a payer. A legacy store of another payer is
 * never chosen: that payer's calls see and extend their own store only.
 */
async function storeStreamOf(ctx: CallContext, agentId: string, key: string): Promise<{ stream: string; state: MemoryState }> {
  const own = memoryStreamName(ctx.payer, agentId, key);
  const ownLoaded = await loadState(ctx.store, own, memoryDecider, parseMemoryEvent);
  if (ownLoaded.revision !== undefined) return { stream: own, state: ownLoaded.state };
  const legacy = legacyMemoryStreamName(agentId, key);
  if (!(await isLegacyStoreOf(ctx, legacy))) return { stream: own, state: ownLoaded.state };
  return { stream: legacy, state: (await loadState(ctx.store, legacy, memoryDecider, parseMemoryEvent)).state };
}

/**
 * Whether the legacy stream opens with this payer as its owner. Only its first event is read,
 * so another payer's values are never loaded, and a legacy stream the audit would fail (no
 * opening event) is nobody's store.
 */
async function isLegacyStoreOf(ctx: CallContext, legacy: string): Promise<boolean> {
  const [first] = await ctx.store.readStream(legacy, { maxCount: 1 });
  if (first?.type !== MEMORY_EVENT_TYPES.opened) return false;
  const opened = memoryStoreOpenedSchema.safeParse(first.data);
  return opened.success && opened.data.owner === ctx.payer.toLowerCase();
}

/** The record labels the version (kind, ruleset); the chain's stateHash covers the version's own members only (chain.ts). */
export const MEMORY_VERSION_KIND = 'memory-version';
export const MEMORY_NOT_FOUND_KIND = 'memory-not-found';
const asRecord = (version: MemoryVersion): JsonObject => ({ kind: MEMORY_VERSION_KIND, ruleset: { ...rulesetOf(version) }, ...version });

/**
 * Puts and gets of one payer's store run one at a time in the process (the saga's state queue),
 * so concurrent puts do not spend their optimistic retries on each other. The payer's own
 * stream name is the key even for a legacy store: only its owner ever reaches it.
 */
const storeOfPayer = (input: { agent_id: string; key: string }, payer: string): string => memoryStreamName(payer, input.agent_id, input.key);

/** Appends one version to the payer's store (optimistic concurrency, retried), or returns the one this payment already wrote. */
export const memoryPut: Command<MemoryPutInput> = {
  stateStream: storeOfPayer,
  async execute(input, ctx) {
    const { stream } = await storeStreamOf(ctx, input.agent_id, input.key);
    const handled = await handleCommand(
      ctx.store,
      stream,
      memoryDecider,
      { agent_id: input.agent_id, key: input.key, value: input.value, payer: ctx.payer, paymentId: ctx.paymentId, now: ctx.now },
      { origin: ctx.paymentId, parse: parseMemoryEvent, metadata: { paymentId: ctx.paymentId } },
    );
    const place = versionWrittenBy(handled.state, ctx.paymentId);
    if (!place) throw new Error(`memory put by ${ctx.paymentId} left no version in ${stream}`);
    return { record: asRecord(await versionAt(ctx, stream, handled.state, place)) };
  },
};

/**
 * The version at `place` of the store's stream: the state's latest, or read from the stream (the
 * state keeps earlier versions' places only: decider.ts).
 */
async function versionAt(ctx: CallContext, stream: string, state: MemoryState, place: Omit<VersionPlace, 'paymentId'>): Promise<MemoryVersion> {
  if (state.latest?.version === place.version) return state.latest;
  const parsed = await eventAt(ctx.store, stream, place.revision, parseMemoryEvent);
  if (parsed.type !== MEMORY_EVENT_TYPES.versionWritten || parsed.data.version !== place.version) throw new Error(`${stream}: revision ${place.revision} is not version ${place.version}`);
  const { paymentId: _paymentId, ...version } = parsed.data;
  return version as MemoryVersion;
}

/**
 * Reads the payer's own store only: the stored version record itself, so that a put and a get
 * of the same version sign the same record; a missing store or version is a signed NOT-FOUND
 * record instead, whether or not another payer keeps a store of the same (agent_id, key).
 */
export const memoryGet: Command<MemoryGetInput> = {
  stateStream: storeOfPayer,
  async execute(input, ctx) {
    const { stream, state } = await storeStreamOf(ctx, input.agent_id, input.key);
    assertOwnStore(state, ctx.payer);
    const place = input.version === undefined ? undefined : versionNumbered(state, input.version);
    const found = input.version === undefined ? latestVersion(state) : place && (await versionAt(ctx, stream, state, place));
    if (found) return { record: asRecord(found) };
    return {
      record: {
        kind: MEMORY_NOT_FOUND_KIND,
        ruleset: { ...MEMORY_CHAIN_RULESET },
        owner: ctx.payer.toLowerCase(),
        agent_id: input.agent_id,
        key: input.key,
        outcome: 'NOT-FOUND',
        requestedVersion: input.version ?? null,
        latestVersion: latestVersion(state)?.version ?? null,
        checkedAt: ctx.now,
      },
    };
  },
};
