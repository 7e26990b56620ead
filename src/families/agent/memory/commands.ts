import type { CallContext, Command, Refusal } from '../../../kernel/operation.ts';
import { MEMORY_CHAIN_RULESET, type MemoryVersion } from './chain.ts';
import { MEMORY_STREAM_PREFIX, parseMemoryEvent } from './events.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import { handleCommand, loadState } from '../../../kernel/decider.ts';
import { foreignPayerRefusal, latestVersion, mayUseStore, memoryDecider, versionNumbered, versionWrittenBy, type MemoryState } from './decider.ts';

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
 * Named by a hash of the canonical [agent_id, key] pair, so that no choice of agent_id and key
 * can make two stores share a stream (no separator to smuggle, no length limit to hit).
 */
export function memoryStreamName(agentId: string, key: string): string {
  return `${MEMORY_STREAM_PREFIX}${canonicalSha256([agentId, key])}`;
}

async function readMemoryState(ctx: CallContext, agentId: string, key: string): Promise<MemoryState> {
  return (await loadState(ctx.store, memoryStreamName(agentId, key), memoryDecider, parseMemoryEvent)).state;
}

/** Runs after the payment is verified and before it is settled: another payer's store costs nothing. */
async function authorizeOwner(input: { agent_id: string; key: string }, ctx: CallContext): Promise<Refusal | undefined> {
  const state = await readMemoryState(ctx, input.agent_id, input.key);
  if (mayUseStore(state, ctx.payer)) return undefined;
  const refusal = foreignPayerRefusal();
  return { status: refusal.status, error: refusal.error, message: refusal.message };
}

/** The record labels the version (kind, ruleset); the chain's stateHash covers the version's own members only (chain.ts). */
export const MEMORY_VERSION_KIND = 'memory-version';
export const MEMORY_NOT_FOUND_KIND = 'memory-not-found';
const asRecord = (version: MemoryVersion): JsonObject => ({ kind: MEMORY_VERSION_KIND, ruleset: { ...MEMORY_CHAIN_RULESET }, ...version });

/** Appends one version (optimistic concurrency, retried), or returns the one this payment already wrote. */
export const memoryPut: Command<MemoryPutInput> = {
  authorize: authorizeOwner,
  stateStream: (input) => memoryStreamName(input.agent_id, input.key),
  async execute(input, ctx) {
    const stream = memoryStreamName(input.agent_id, input.key);
    const handled = await handleCommand(
      ctx.store,
      stream,
      memoryDecider,
      { agent_id: input.agent_id, key: input.key, value: input.value, payer: ctx.payer, paymentId: ctx.paymentId, now: ctx.now },
      { origin: ctx.paymentId, parse: parseMemoryEvent, metadata: { paymentId: ctx.paymentId } },
    );
    const written = versionWrittenBy(handled.state, ctx.paymentId);
    if (!written) throw new Error(`memory put by ${ctx.paymentId} left no version in ${stream}`);
    return { record: asRecord(written) };
  },
};

/**
 * The stored version record itself, so that a put and a get of the same version sign the same
 * record; a missing store or version is a signed NOT-FOUND record instead.
 */
export const memoryGet: Command<MemoryGetInput> = {
  authorize: authorizeOwner,
  stateStream: (input) => memoryStreamName(input.agent_id, input.key),
  async execute(input, ctx) {
    const state = await readMemoryState(ctx, input.agent_id, input.key);
    if (!mayUseStore(state, ctx.payer)) throw foreignPayerRefusal();
    const found = input.version === undefined ? latestVersion(state) : versionNumbered(state, input.version);
    if (found) return { record: asRecord(found) };
    return {
      record: {
        kind: MEMORY_NOT_FOUND_KIND,
        ruleset: { ...MEMORY_CHAIN_RULESET },
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
