import { z } from 'zod';
import { fromEngine, pricedOperation, type Route } from '../../../kernel/operation.ts';
import { hex64, jsonObject, rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRoute } from '../../../kernel/route-kit/verify-route.ts';
import { groupedDigits } from '../../../kernel/grouped-digits.ts';
import { invalidInputRefusal } from '../../../kernel/refusal.ts';
import { OWASP_MCP_TOP10_VERSION } from '../../../kernel/standards/owasp-mcp-top10.ts';
import { analyseToolPermissions, MODEL_TEXT_MAX_CHARS, modelFacingLength, PERMISSION_CATEGORIES, RISK_LEVELS, TOOL_PERMISSION_RULESET } from './engine.ts';

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
  ruleset: rulesetMember(TOOL_PERMISSION_RULESET),
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
  evidence_source: z.literal('caller-supplied').describe('The manifest, the other tool names and the ownership proof were supplied by the caller; the service fetches and verifies none of them'),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })).describe('Checks the service did not make: fetching the manifest, and verifying an ownership proof when one is supplied'),
  analyzedAt: z.number().int(),
});

const toolPermissionThreatModel = pricedOperation({
    id: 'mcp.threatmodel.tool-permission',
    method: 'POST',
    path: '/v1/mcp/threatmodel/tool-permission',
    family: 'agent',
    priceUsd: '0.25',
    summary: 'Permission-sprawl risk of one MCP manifest, with an ownership proof recommended.',
    description: `Reads the permissions and scopes a tools/list manifest declares (per tool, in annotations, and server-wide) and finds wildcards, over-broad scopes, file, network, command-execution and secrets access, hidden instructions in model-facing text, and shadowed tool names (ruleset ${TOOL_PERMISSION_RULESET.id}/${TOOL_PERMISSION_RULESET.version}); findings cite the ${OWASP_MCP_TOP10_VERSION}. MINIMAL when no permission is declared anywhere; CRITICAL only with an ownership proof of the server, otherwise capped at HIGH with an ownership proof recommended. The model-facing text of the whole manifest (tool descriptions, and every description and title in input schemas) is at most ${groupedDigits(MODEL_TEXT_MAX_CHARS)} characters (else 422 model_text_too_long, before the quote).`,
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
    // Input-schema descriptions have no length limit of their own, so the total is bounded here.
    precheck(input) {
      const total = modelFacingLength(input.manifest.tools);
      if (total <= MODEL_TEXT_MAX_CHARS) return undefined;
      return invalidInputRefusal('model_text_too_long', 'manifest.tools', `carries ${total} characters of model-facing text (descriptions and schema descriptions and titles); at most ${MODEL_TEXT_MAX_CHARS} are read`);
    },
    keyFamily: 'tool-permission',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/mcp/threatmodel/tool-permission/recheck',
    command: fromEngine(analyseToolPermissions),
  });

const toolPermissionRecheck = verifyRoute({ id: 'mcp.threatmodel.tool-permission.recheck', method: 'POST', path: '/v1/mcp/threatmodel/tool-permission/recheck', family: 'agent', keyFamily: 'tool-permission', summary: 'Re-checks a tool-permission threat model (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody });

export const toolPermission: Route[] = [toolPermissionThreatModel, toolPermissionRecheck];
