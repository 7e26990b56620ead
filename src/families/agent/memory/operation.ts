import { z } from 'zod';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { jsonValue, rulesetMember, signatureEnvelope } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { checkValueBudget, LEGACY_MEMORY_CHAIN_RULESET, MEMORY_CHAIN_RULESET } from './chain.ts';
import { MEMORY_NOT_FOUND_KIND, MEMORY_VERSION_KIND, memoryGet as memoryGetCommand, memoryPut as memoryPutCommand } from './commands.ts';
import { memoryVersionSchema, payerAddress } from './events.ts';

/**
 * Memory put and get: two priced operations over one aggregate (a payer's hash-chained store per
 * agent id and key), so they share this folder, its decider, events and audit rule.
 */
/** Caller-chosen names of a memory store; hashed into the stream name, so any printable text is safe. */
const storeName = z.string().regex(/^[\x21-\x7e]{1,256}$/, 'must be 1-256 printable ASCII characters without spaces');
const ownerAddress = payerAddress.describe("The payer whose store it is (the payment's from address, lowercase)");

/** Any JSON value, null included; only an absent member is "required" (z.json alone says "Invalid input"). */
const requiredJson = z.unknown().refine((v): boolean => v !== undefined, { message: 'is required', abort: true }).pipe(jsonValue);

const memoryNotFoundSchema = z
  .object({
    kind: z.literal(MEMORY_NOT_FOUND_KIND),
    ruleset: rulesetMember(MEMORY_CHAIN_RULESET),
    owner: ownerAddress,
    agent_id: z.string(),
    key: z.string(),
    outcome: z.literal('NOT-FOUND'),
    requestedVersion: z.number().int().nullable().describe('The version asked for; null when the latest was asked for'),
    latestVersion: z.number().int().nullable().describe("The newest version of the payer's store; null when the payer has no store of this agent_id and key"),
    checkedAt: z.number().int(),
  })
  .strict();

const memoryPutInput = z.object({ agent_id: storeName, key: storeName, value: requiredJson }).strict();

const sealedMemoryResponse = (sealed: z.ZodType) => z.object({ sealed, ...signatureEnvelope });
/** A version as signed: its chain members (events.ts) under the record's kind, naming its owner (ruleset 2). */
const signedMemoryVersion = memoryVersionSchema.extend({ kind: z.literal(MEMORY_VERSION_KIND), ruleset: rulesetMember(MEMORY_CHAIN_RULESET), owner: ownerAddress }).strict();
/** A version written before stores were scoped to their payer (ruleset 1, no owner), as a get of its store returns it. */
const signedLegacyMemoryVersion = memoryVersionSchema
  .omit({ owner: true })
  .extend({ kind: z.literal(MEMORY_VERSION_KIND), ruleset: rulesetMember(LEGACY_MEMORY_CHAIN_RULESET) })
  .strict();

const memoryGet = pricedOperation({
    id: 'memory.get',
    method: 'POST',
    path: '/v1/memory/get',
    family: 'agent',
    priceUsd: '0.05',
    summary: "Latest signed state record for an agent's memory key.",
    description:
      "Returns the latest version of the payer's own (agent_id, key) store, or the given version, as the very record its put signed (so put and get of one version verify alike). Every store belongs to one payer (the payment's from address, the record's owner): a get reads the payer's store only, so a payer without a store of that agent_id and key gets a signed record with outcome NOT-FOUND, whoever else keeps one; so does a missing version. Versions written before stores were scoped to their payer are returned as signed then (ruleset memory-chain 1, no owner). The example reads what the memory put example stores: a payer who has not sent that put gets NOT-FOUND.",
    inputFrom: 'json',
    input: z.object({ agent_id: storeName, key: storeName, version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional() }).strict(),
    example: { agent_id: 'did:web:agent.example', key: 'preferences' },
    output: sealedMemoryResponse(z.union([signedMemoryVersion, signedLegacyMemoryVersion, memoryNotFoundSchema])),
    keyFamily: 'memory',
    signedMember: 'sealed',
    verifyPath: '/v1/memory/verify',
    command: memoryGetCommand,
  });

const memoryPut = pricedOperation({
    id: 'memory.put',
    method: 'POST',
    path: '/v1/memory/put',
    family: 'agent',
    priceUsd: '0.10',
    summary: "Appends one budget-capped state version to the agent's hash-chained store.",
    description:
      "Appends version n+1 {owner, agent_id, key, version, value, valueSha256, prevStateHash, stateHash, writtenAt} to the payer's own (agent_id, key) store, signed as a record of kind memory-version under ruleset memory-chain 2. owner is the payer (the payment's from address, lowercase): every payer has its own store of an agent_id and key, and a payer's first put opens it at version 1, whoever else keeps one. stateHash = SHA-256 of the RFC 8785 form of the version members without stateHash (the kind and ruleset labels are not part of the chain); version 1 links to 64 zeros. A value whose canonical size exceeds MEMORY_VALUE_CAP_BYTES (see /config) is answered 422 BUDGET-EXCEEDED before any quote, and nothing is stored.",
    inputFrom: 'json',
    input: memoryPutInput,
    example: { agent_id: 'did:web:agent.example', key: 'preferences', value: { language: 'en', units: 'metric' } },
    output: sealedMemoryResponse(signedMemoryVersion),
    keyFamily: 'memory',
    signedMember: 'sealed',
    verifyPath: '/v1/memory/verify',
    precheck(input, settings) {
      const budget = checkValueBudget(input.value, settings.MEMORY_VALUE_CAP_BYTES);
      if (budget.withinCap) return undefined;
      const reason = `canonical size ${budget.sizeBytes} bytes exceeds the cap of ${budget.capBytes} bytes (MEMORY_VALUE_CAP_BYTES); nothing was stored`;
      return { status: 422, error: 'budget_exceeded', message: `value ${reason}`, outcome: 'BUDGET-EXCEEDED', issues: [{ path: 'value', message: reason }] };
    },
    command: memoryPutCommand,
  });

const memoryVerifyRoutes = verifyRouteOnGetAndPost({ id: 'memory.verify', path: '/v1/memory/verify', family: 'agent', keyFamily: 'memory', summary: 'Re-checks a memory put or get result (body = the sealed record as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody });

export const memory: Route[] = [memoryGet, memoryPut, ...memoryVerifyRoutes];
