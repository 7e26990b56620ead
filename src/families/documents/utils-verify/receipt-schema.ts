import { z } from 'zod';
import type { Command, CommandResult } from '../../../kernel/operation.ts';
import { once } from '../../../kernel/once.ts';
import { hex64, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { UTILITY_RECEIPT_KIND } from '../utility-receipt.ts';

const rulesetSchema = z.object({
  id: z.string(),
  version: z.string(),
  data: z.array(z.object({ name: z.string(), version: z.string(), sha256: hex64, data_date: z.string() })).optional(),
});

/**
 * The documented 200 answer of a utility: the spec's utility receipt at the top level, its
 * signature envelope, and `output` beside it (not signed itself: bound by output_sha256).
 */
export function utilityReceiptResponse(utility: string, findings: z.ZodRawShape): z.ZodObject {
  const utilityResult = z.object({
    ...findings,
    ruleset: rulesetSchema,
    input_sha256: hex64.describe('SHA-256 of the input the output is derived from (UTF-8 bytes of the text)'),
    output_sha256: hex64.describe('SHA-256 of the output bytes: decode `output` per output_encoding and hash'),
    output_media_type: z.string(),
    output_bytes: z.number().int().min(0),
    output_encoding: z.enum(['utf-8', 'base64']),
  });
  const record = z.object({ kind: z.literal(UTILITY_RECEIPT_KIND), utility: z.literal(utility), servedAt: z.number().int(), utility_result: utilityResult });
  return signedResponse(record, null).extend({
    output: z.string().describe('The output itself, beside the signed record: text as it is, or base64 when output_encoding is "base64". Check it on GET /v1/utils/verify (parameter output) or hash it yourself.'),
  });
}

/**
 * The command of a stateless utility whose pure engine gives the record and the output beside
 * it, loaded on its first call: its libraries and data (XML and HTML parsers) then stay out of
 * every start of the service. Engines whose worst inputs take seconds run on an engine thread
 * instead (fromThreadedEngine). The engine also gets what the operation's precheck handed over
 * in the request (PrecheckHandoff), if anything.
 */
export function fromLazyUtilityEngine<I, H = never>(load: () => Promise<(input: I, now: number, handoff?: H) => CommandResult>): Command<I, H> {
  const engine = once(load);
  return {
    async execute(input, ctx, handoff) {
      return (await engine())(input, ctx.now, handoff);
    },
  };
}

/** One wording of a code-point span across the utilities. */
export const codePointSpan = z.object({ start: z.number().int().min(0), end: z.number().int().min(0) }).describe('Offsets in Unicode code points, [start, end)');
