import { z } from 'zod';
import { memoryGet, memoryPut } from '../../commands/agent/memory.ts';
import { memoryChainRule } from '../../commands/agent/memory-chain-audit.ts';
import { judgeGrade, toolPermissionThreatModel } from '../../commands/agent/stateless.ts';
import { OWASP_MCP_TOP10_VERSION } from '../../kernel/standards/owasp-mcp-top10.ts';
import { PERMISSION_CATEGORIES, RISK_LEVELS, TOOL_PERMISSION_SCORING_VERSION } from '../../engines/agent/tool-permission.ts';
import { JUDGE_OUTCOMES, JUDGE_RUBRIC_VERSION } from '../../engines/agent/judge.ts';
import { SUPPORTED_SCHEMA_KEYWORDS } from '../../engines/agent/judge-metrics.ts';
import { checkValueBudget } from '../../engines/agent/memory-chain.ts';
import { uptime } from './uptime/operation.ts';
import { memoryVersionSchema } from '../../events/domain/agent.ts';
import { hex64, jsonObject, jsonValue, signatureEnvelope, signedResponse, token } from '../../kernel/route-kit/schemas.ts';
import { defineFamily, pricedOperation, type Route } from '../../kernel/operation.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRoute } from '../../kernel/route-kit/verify-route.ts';

/** Caller-chosen names of a memory store; hashed into the stream name, so any printable text is safe. */
const storeName = z.string().regex(/^[\x21-\x7e]{1,256}$/, 'must be 1-256 printable ASCII characters without spaces');

/** Any JSON value, null included; only an absent member is "required" (z.json alone says "Invalid input"). */
const requiredJson = z.unknown().refine((v): boolean => v !== undefined, { message: 'is required', abort: true }).pipe(jsonValue);

const memoryNotFoundSchema = z
  .object({
    agent_id: z.string(),
    key: z.string(),
    outcome: z.literal('NOT-FOUND'),
    requestedVersion: z.number().int().nullable().describe('The version asked for; null when the latest was asked for'),
    latestVersion: z.number().int().nullable().describe('The newest version of the store; null when the store does not exist'),
    checkedAt: z.number().int(),
  })
  .strict();

const memoryPutInput = z.object({ agent_id: storeName, key: storeName, value: requiredJson }).strict();

const sealedMemoryResponse = (sealed: z.ZodType) => z.object({ sealed, ...signatureEnvelope });

const criterionBase = { id: token, weight: z.number().gt(0).max(1000) };
const text = (max: number) => z.string().max(max);
const ratio = z.number().min(0).max(1);

const judgeCriterion = z.discriminatedUnion('type', [
  z.object({ ...criterionBase, type: z.enum(['contains', 'not_contains']), text: text(1000).min(1), case_sensitive: z.boolean().optional() }).strict(),
  z
    .object({ ...criterionBase, type: z.literal('regex'), pattern: text(256).min(1), flags: z.string().regex(/^(?!.*(.).*\1)[imsu]{0,4}$/, 'must be distinct flags among i, m, s, u').optional() })
    .strict()
    .superRefine((c, ctx) => {
      try {
        new RegExp(c.pattern, c.flags ?? '');
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['pattern'], message: `does not compile: ${(err as Error).message}` });
      }
    }),
  z.object({ ...criterionBase, type: z.literal('json_schema'), schema: jsonObject }).strict(),
  z
    .object({ ...criterionBase, type: z.literal('length'), unit: z.enum(['chars', 'words']), min: z.number().int().min(0).optional(), max: z.number().int().min(0).optional() })
    .strict()
    .refine((c) => c.min !== undefined || c.max !== undefined, { message: 'needs min or max', path: ['min'] })
    .refine((c) => c.min === undefined || c.max === undefined || c.min <= c.max, { message: 'must not exceed max', path: ['min'] }),
  z.object({ ...criterionBase, type: z.literal('edit_distance'), min_similarity: ratio.optional() }).strict(),
  z.object({ ...criterionBase, type: z.literal('ngram_overlap'), n: z.number().int().min(1).max(5).optional(), min_score: ratio.optional() }).strict(),
]);

const judgeInput = z
  .object({
    prompt: text(20_000).optional().describe('Carried only as a digest'),
    response_a: text(20_000),
    response_b: text(20_000),
    reference: text(20_000).optional().describe('Needed by edit_distance and ngram_overlap'),
    rubric: z
      .array(judgeCriterion)
      .min(1, 'must contain at least one criterion')
      .max(32)
      .refine((r) => new Set(r.map((c) => c.id)).size === r.length, 'criterion ids must be unique'),
  })
  .strict();

const judgeSide = z.object({ score: ratio, passed: z.boolean(), detail: z.string() });
const judgeRecordSchema = z.object({
  kind: z.literal('judge-grade'),
  rubricVersion: z.literal(JUDGE_RUBRIC_VERSION),
  outcome: z.enum(JUDGE_OUTCOMES),
  winner: z.enum(['a', 'b', 'tie']).nullable(),
  grade: z.object({ a: ratio, b: ratio }).nullable(),
  criteria: z.array(z.object({ id: z.string(), type: z.string(), weight: z.number(), a: judgeSide, b: judgeSide })),
  unassessable: z.array(z.object({ id: z.string(), type: z.string(), reason: z.string() })),
  subject: z.object({ responseASha256: hex64, responseBSha256: hex64, referenceSha256: hex64.nullable(), promptSha256: hex64.nullable(), rubricSha256: hex64 }),
  gradedAt: z.number().int(),
});

const declaredList = z.array(z.string().min(1).max(256)).max(100);
const manifestTool = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().max(10_000).optional(),
  inputSchema: jsonObject.optional(),
  permissions: declaredList.optional(),
  scopes: declaredList.optional(),
  annotations: z.looseObject({ permissions: declaredList.optional(), scopes: declaredList.optional() }).optional(),
});

const toolPermissionInput = z
  .object({
    manifest: z
      .looseObject({ tools: z.array(manifestTool).min(1, 'must list at least one tool').max(500), permissions: declaredList.optional(), scopes: declaredList.optional() })
      .describe('A tools/list result; members beyond these are kept in the digest and otherwise ignored'),
    other_tool_names: z.array(z.string().min(1).max(128)).max(1000).optional().describe("Tool names of the agent's other servers, for shadowing"),
    ownership_proof: z
      .object({ method: z.enum(['dns-txt', 'well-known-uri', 'signed-challenge', 'did']), subject: z.string().min(1).max(256), evidence: z.string().min(1).max(4096) })
      .strict()
      .optional(),
  })
  .strict();

const toolPermissionRecordSchema = z.object({
  kind: z.literal('tool-permission-threat-model'),
  scoringVersion: z.literal(TOOL_PERMISSION_SCORING_VERSION),
  owaspList: z.literal(OWASP_MCP_TOP10_VERSION),
  manifestSha256: hex64,
  toolsCount: z.number().int(),
  declaredPermissions: z.array(
    z.object({ tool: z.string().nullable(), source: z.string(), value: z.string(), categories: z.array(z.enum(PERMISSION_CATEGORIES)), wildcard: z.boolean(), overBroad: z.boolean(), write: z.boolean() }),
  ),
  findings: z.array(
    z.object({ rule: z.string(), severity: z.enum(['low', 'medium', 'high', 'critical']), tool: z.string().nullable(), detail: z.string(), owasp: z.array(z.string().regex(/^MCP(0[1-9]|10)$/)) }),
  ),
  owasp: z.record(z.string(), z.string()).describe('Name of every OWASP MCP id the findings cite'),
  riskLevel: z.enum(RISK_LEVELS),
  levelCap: z.object({ from: z.literal('CRITICAL'), to: z.literal('HIGH'), reason: z.string() }).nullable(),
  ownershipProof: z.object({ method: z.string(), subject: z.string(), evidenceSha256: hex64 }).nullable(),
  recommendations: z.array(z.string()),
  analyzedAt: z.number().int(),
});

const routes: Route[] = [
  ...uptime,
  pricedOperation({
    id: 'mcp.eval.judge',
    method: 'POST',
    path: '/v1/mcp/eval/judge',
    family: 'agent',
    priceUsd: '0.15',
    summary: 'Grades one response pair against a rubric; deterministic; no external inference.',
    description: `Grades response_a and response_b against weighted criteria (rule ${JUDGE_RUBRIC_VERSION}): contains, not_contains, regex, json_schema (subset: ${SUPPORTED_SCHEMA_KEYWORDS.join(', ')}), length (chars or words), edit_distance and ngram_overlap against the reference. Each response's grade is the weight-averaged score over the assessable criteria; the higher grade wins, equal grades tie. Criteria that cannot be assessed are listed with the reason; when none can be, the outcome is INSUFFICIENT-DATA and no grade is given.`,
    inputFrom: 'json',
    input: judgeInput,
    example: {
      prompt: 'What is the capital of France? Answer in JSON.',
      response_a: '{"capital":"Paris"}',
      response_b: 'The capital is Paris.',
      reference: '{"capital":"Paris"}',
      rubric: [
        { id: 'valid-json', weight: 2, type: 'json_schema', schema: { type: 'object', required: ['capital'], properties: { capital: { type: 'string' } } } },
        { id: 'names-paris', weight: 1, type: 'contains', text: 'paris' },
        { id: 'close-to-reference', weight: 1, type: 'edit_distance', min_similarity: 0.8 },
      ],
    },
    output: signedResponse(judgeRecordSchema, 'verdictCore'),
    keyFamily: 'judge',
    signedMember: 'verdictCore',
    verifyPath: '/v1/mcp/eval/judge/verify',
    command: judgeGrade,
  }),
  pricedOperation({
    id: 'mcp.threatmodel.tool-permission',
    method: 'POST',
    path: '/v1/mcp/threatmodel/tool-permission',
    family: 'agent',
    priceUsd: '0.25',
    summary: 'Permission-sprawl risk of one MCP manifest, with an ownership proof recommended.',
    description: `Reads the permissions and scopes a tools/list manifest declares (per tool, in annotations, and server-wide) and finds wildcards, over-broad scopes, file, network, command-execution and secrets access, hidden instructions in model-facing text, and shadowed tool names (rule ${TOOL_PERMISSION_SCORING_VERSION}); findings cite the ${OWASP_MCP_TOP10_VERSION}. MINIMAL when no permission is declared anywhere; CRITICAL only with an ownership proof of the server, otherwise capped at HIGH with an ownership proof recommended.`,
    inputFrom: 'json',
    input: toolPermissionInput,
    example: {
      manifest: {
        tools: [
          { name: 'read_file', description: 'Reads a file in the workspace.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, permissions: ['fs:read:/workspace'] },
          { name: 'run_command', description: 'Runs a shell command.', permissions: ['shell:exec', 'network:*'] },
        ],
      },
      other_tool_names: ['read_file'],
    },
    output: signedResponse(toolPermissionRecordSchema, 'evidenceCore'),
    keyFamily: 'tool-permission',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/mcp/threatmodel/tool-permission/recheck',
    command: toolPermissionThreatModel,
  }),
  pricedOperation({
    id: 'memory.get',
    method: 'POST',
    path: '/v1/memory/get',
    family: 'agent',
    priceUsd: '0.05',
    summary: "Latest signed state record for an agent's memory key.",
    description:
      'Returns the latest version of the (agent_id, key) store, or the given version, as the very record its put signed (so put and get of one version verify alike). A missing store or version gives a signed record with outcome NOT-FOUND. Only the payer that created the store may read it: another payer is refused with 403 before settlement and charged nothing.',
    inputFrom: 'json',
    input: z.object({ agent_id: storeName, key: storeName, version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional() }).strict(),
    example: { agent_id: 'did:web:agent.example', key: 'preferences' },
    output: sealedMemoryResponse(z.union([memoryVersionSchema, memoryNotFoundSchema])),
    keyFamily: 'memory',
    signedMember: 'sealed',
    verifyPath: '/v1/memory/verify',
    command: memoryGet,
  }),
  pricedOperation({
    id: 'memory.put',
    method: 'POST',
    path: '/v1/memory/put',
    family: 'agent',
    priceUsd: '0.10',
    summary: "Appends one budget-capped state version to the agent's hash-chained store.",
    description:
      'Appends version n+1 {agent_id, key, version, value, valueSha256, prevStateHash, stateHash, writtenAt} to the (agent_id, key) store. stateHash = SHA-256 of the RFC 8785 form of the version without stateHash; version 1 links to 64 zeros. A value whose canonical size exceeds MEMORY_VALUE_CAP_BYTES (see /config) is answered 422 BUDGET-EXCEEDED before any quote, and nothing is stored. The store belongs to the payer that created it: another payer is refused with 403 before settlement and charged nothing.',
    inputFrom: 'json',
    input: memoryPutInput,
    example: { agent_id: 'did:web:agent.example', key: 'preferences', value: { language: 'en', units: 'metric' } },
    output: sealedMemoryResponse(memoryVersionSchema),
    keyFamily: 'memory',
    signedMember: 'sealed',
    verifyPath: '/v1/memory/verify',
    precheck(input, settings) {
      const budget = checkValueBudget(input.value, settings.MEMORY_VALUE_CAP_BYTES);
      if (budget.withinCap) return undefined;
      const reason = `canonical size ${budget.sizeBytes} bytes exceeds the cap of ${budget.capBytes} bytes (MEMORY_VALUE_CAP_BYTES); nothing was stored`;
      return { status: 422, error: 'budget_exceeded', message: `value ${reason}`, outcome: 'BUDGET-EXCEEDED', issues: [{ path: 'value', message: reason }] };
    },
    command: memoryPut,
  }),

  verifyRoute({ id: 'memory.verify', method: 'GET', path: '/v1/memory/verify', family: 'agent', keyFamily: 'memory', summary: 'Re-checks a memory put or get result (body = the sealed record as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  verifyRoute({ id: 'mcp.eval.judge.verify', method: 'GET', path: '/v1/mcp/eval/judge/verify', family: 'agent', keyFamily: 'judge', summary: 'Re-checks a judge grade (body = the verdictCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  verifyRoute({ id: 'mcp.threatmodel.tool-permission.recheck', method: 'POST', path: '/v1/mcp/threatmodel/tool-permission/recheck', family: 'agent', keyFamily: 'tool-permission', summary: 'Re-checks a tool-permission threat model (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
];

export const agentFamily = defineFamily('agent', routes, [memoryChainRule]);
