import { hash } from 'node:crypto';
import type { Route } from '../../../kernel/operation.ts';
import { utilityRecord } from '../../../kernel/route-kit/records.ts';
import { param, parseIntegerParam, parseJsonParam, verifyRoute } from '../../../kernel/route-kit/verify-route.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { outputBytes, type OutputEncoding } from '../utility-receipt.ts';

const params = { kind: param.text(), utility: param.text(), served_at: param.integer(), result: param.json(), output: param.optionalText() };

/** When the caller sends the output too, its bytes must be the ones the record binds. */
function outputMatches(p: { output: string }, record: JsonValue): string | undefined {
  if (p.output === '') return undefined;
  const result = (record as { utility_result?: { output_sha256?: unknown; output_encoding?: unknown } }).utility_result;
  if (typeof result?.output_sha256 !== 'string') return 'the record binds no output (utility_result.output_sha256 is absent)';
  const encoding: OutputEncoding = result.output_encoding === 'base64' ? 'base64' : 'utf-8';
  const digest = hash('sha256', outputBytes(p.output, encoding), 'hex');
  return digest === result.output_sha256 ? undefined : `the output's SHA-256 is ${digest}, the record binds ${result.output_sha256}: the output was changed`;
}

const rebuild = (p: { kind: string; utility: string; served_at: string; result: string }) =>
  utilityRecord({ kind: p.kind, utility: p.utility, servedAt: parseIntegerParam(p.served_at), utility_result: parseJsonParam('result', p.result) });

const summary = 'Re-checks a utility receipt {kind, utility, servedAt, utility_result} (result = utility_result as JSON), and the output against its digest when `output` is sent.';

export const utilsVerify: Route[] = [
  verifyRoute({ id: 'utils.verify', method: 'GET', path: '/v1/utils/verify', family: 'documents', keyFamily: 'utils', summary, params, rebuild, alsoCheck: outputMatches }),
  // Outputs (a redacted document, a PDF) outgrow a URL: the same check with a JSON body.
  verifyRoute({ id: 'utils.verify.post', method: 'POST', path: '/v1/utils/verify', family: 'documents', keyFamily: 'utils', summary: `${summary} POST form, for outputs too large for a query string.`, params, rebuild, alsoCheck: outputMatches }),
];
