import { z } from 'zod';
import { hex64, signedResponse } from '../../kernel/route-kit/schemas.ts';
import type { CommandResult } from '../../kernel/operation.ts';
import { utilityRecord } from '../../kernel/route-kit/records.ts';
import { sha256Hex } from '../../signing/hash.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';

/** How the output travels beside the record: text as it is, binary as standard base64. */
export type OutputEncoding = 'utf-8' | 'base64';

export interface UtilityOutput {
  /** The output itself: text, or bytes. */
  content: string | Uint8Array;
  mediaType: string;
}

export interface UtilityReceiptParts {
  /** The operation id, e.g. "utils.pii-redact". */
  utility: string;
  now: number;
  /** The exact bytes (or text) the caller supplied that the output is derived from. */
  input: string | Uint8Array;
  output: UtilityOutput;
  /** `{id, version, data?}` per docs/records-and-outcomes.md. */
  ruleset: JsonObject;
  /** What was done and found: small structured findings (audit lists, fields, changes). */
  findings: JsonObject;
}

export const UTILITY_RECEIPT_KIND = 'utility-receipt';

const byteLength = (content: string | Uint8Array): number => (typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : content.byteLength);

/**
 * The spec's utility receipt {kind, utility, servedAt, utility_result}. The output can be larger
 * than a record should carry, so the record binds it by digest (input_sha256, output_sha256,
 * output_media_type, output_bytes, output_encoding) and the output travels beside the record as
 * `output`. A verifier decodes `output` per output_encoding, hashes the bytes, and compares.
 */
export function utilityReceipt(parts: UtilityReceiptParts): CommandResult {
  const { content, mediaType } = parts.output;
  const encoding: OutputEncoding = typeof content === 'string' ? 'utf-8' : 'base64';
  const record = utilityRecord({
    kind: UTILITY_RECEIPT_KIND,
    utility: parts.utility,
    servedAt: parts.now,
    utility_result: {
      ...parts.findings,
      ruleset: parts.ruleset,
      input_sha256: sha256Hex(parts.input),
      output_sha256: sha256Hex(content),
      output_media_type: mediaType,
      output_bytes: byteLength(content),
      output_encoding: encoding,
    },
  });
  const output = typeof content === 'string' ? content : Buffer.from(content).toString('base64');
  return { record, beside: { output } };
}

/** The output's bytes as a verifier recovers them from the answer. */
export function outputBytes(output: string, encoding: OutputEncoding): Buffer {
  return encoding === 'base64' ? Buffer.from(output, 'base64') : Buffer.from(output, 'utf8');
}

/** The documented answer of a utility: the receipt, its seal, and the output beside it. */
export function utilityResponse(utility: string, findings: z.ZodRawShape): z.ZodObject {
  const record = z.object({
    kind: z.literal(UTILITY_RECEIPT_KIND),
    utility: z.literal(utility),
    servedAt: z.number().int(),
    utility_result: z.looseObject({
      ...findings,
      ruleset: z.looseObject({ id: z.string(), version: z.string() }),
      input_sha256: hex64,
      output_sha256: hex64,
      output_media_type: z.string(),
      output_bytes: z.number().int(),
      output_encoding: z.enum(['utf-8', 'base64']),
    }),
  });
  return signedResponse(record, null).extend({ output: z.string().describe('The output itself, unsigned: its SHA-256 is utility_result.output_sha256 (decode base64 first when output_encoding says so)') });
}
