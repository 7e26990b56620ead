import { z } from 'zod';
import { eventId } from '../../../events/event-ids.ts';
import { WrongExpectedRevisionError } from '../../../events/port.ts';
import { pricedOperation, type CallContext, type Route } from '../../../kernel/operation.ts';
import { attestationReadBack, attestationRecordedSchema, attestationStream } from '../../../kernel/route-kit/read-back.ts';
import { jsonObject, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { modelThreats } from './engine.ts';
import { checkManifestLimits, MAX_ELEMENTS, MAX_INPUTS_PER_ELEMENT, MAX_NAME_LENGTH, MAX_PATH_LENGTH, MAX_THREATS } from './limits.ts';
import { storedRecordResult } from '../../../kernel/signing-stamp.ts';

const STREAM_PREFIX = 'threatmodel';
const RECORDED = 'ThreatModelRecorded';

const input = z
  .object({
    manifest: jsonObject.describe('An MCP tools/list result ({tools: [...]}) or an OpenAPI 3.x document, nested at most 32 levels'),
    format: z.enum(['mcp', 'openapi']).optional().describe('Default: openapi when the document has an `openapi` member, else mcp'),
  })
  .strict();

async function storedModel(ctx: CallContext, attestationId: string): Promise<JsonObject | undefined> {
  const [first] = await ctx.store.readStream(attestationStream(STREAM_PREFIX, attestationId), { maxCount: 1 });
  return first ? (attestationRecordedSchema.parse(first.data).evidenceCore as JsonObject) : undefined;
}

export const threatModel = pricedOperation({
  id: 'security.threatmodel',
  method: 'POST',
  path: '/v1/security/threatmodel',
  family: 'security',
  priceUsd: '0.25',
  summary: 'Threat model of one tool manifest; persisted under attestation_id.',
  description:
`STRIDE per element of an MCP tools/list result (with the MCP annotation defaults when hints are absent) or an OpenAPI 3.x document: each threat with its rule, category, element, the manifest evidence that raised it, likelihood and impact from the published rule table, OWASP MCP Top 10 and CWE ids (each rule's title and mitigations are in the record's ruleset), and an OWASP Threat Dragon v2 export inside the record. At most ${MAX_ELEMENTS} tools or operations, ${MAX_INPUTS_PER_ELEMENT} inputs per element, tool and input names of at most ${MAX_NAME_LENGTH} characters and paths of ${MAX_PATH_LENGTH}, and at most ${MAX_THREATS} threats: beyond, 422 manifest_too_large before any quote. attestation_id is the SHA-256 of the record without its stamp: the same manifest gives the same id, the first model of it is kept, and GET /v1/security/threatmodel/verify/{attestation_id} returns it.`,
  inputFrom: 'json',
  input,
  example: {
    manifest: {
      tools: [
        { name: 'fetch_page', description: 'Fetches a web page and returns its text.', inputSchema: { type: 'object', properties: { url: { type: 'string', format: 'uri' } }, required: ['url'] }, annotations: { readOnlyHint: true, openWorldHint: true } },
        { name: 'delete_file', description: 'Deletes a file in the workspace.', inputSchema: { type: 'object', properties: { path: { type: 'string', maxLength: 1024 } } }, annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false } },
      ],
    },
  },
  output: signedResponse(z.looseObject({ kind: z.literal('threat-model'), attestation_id: z.string(), threats: z.array(z.looseObject({ rule: z.string(), stride: z.string(), cwe: z.array(z.string()) })), threat_dragon: z.looseObject({}), modeledAt: z.number().int() }), 'evidenceCore'),
  keyFamily: 'threatmodel',
  signedMember: 'evidenceCore',
  verifyPath: '/v1/security/threatmodel/verify/{attestation_id}',
  outputBeside: true,
  precheck: checkManifestLimits,
  command: {
    // `built`: the elements and threats the limit check of this request built (checkManifestLimits).
    async execute(i, ctx, built) {
      const record = modelThreats(i, ctx.now, built);
      const id = String(record['attestation_id']);
      const earlier = await storedModel(ctx, id);
      if (earlier) return storedRecordResult(earlier, { already_recorded: { note: 'this manifest was modelled before: the first model is kept and returned', modeledAt: earlier['modeledAt'] ?? null } });
      const stream = attestationStream(STREAM_PREFIX, id);
      try {
        await ctx.store.appendToStream(stream, [{ id: eventId(ctx.paymentId, RECORDED), type: RECORDED, data: { attestation_id: id, evidenceCore: record } }], { expectedRevision: 'no_stream' });
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        // Another call modelled the same manifest first (or this call's append landed): the stored one is the record.
        const first = await storedModel(ctx, id);
        if (!first) throw err;
        return storedRecordResult(first, first['modeledAt'] === record['modeledAt'] ? undefined : { already_recorded: { note: 'this manifest was modelled before: the first model is kept and returned', modeledAt: first['modeledAt'] ?? null } });
      }
      return { record };
    },
  },
});

const readBack = attestationReadBack({ id: 'security.threatmodel.read-back', path: '/v1/security/threatmodel/verify/:attestation_id', family: 'security', keyFamily: 'threatmodel', streamPrefix: STREAM_PREFIX, eventType: RECORDED, summary: 'Read-back of a persisted threat model.' });

export const threatModelRoutes: Route[] = [threatModel, readBack];
