import { signingStampOf } from '../signing-stamp.ts';
import { z } from 'zod';
import type { JsonValue } from '../../signing/rfc8785.ts';
import type { HistoricKey } from '../../signing/keyring.ts';
import type { KeyFamily } from '../../signing/key-families.ts';
import { check, type CheckResult } from '../../signing/seal.ts';
import { IJsonRefused, parseIJson } from '../rfc7493.ts';
import { MAX_JSON_DEPTH } from '../json.ts';
import { freeRoute, type Family, type FreeRoute, type HttpMethod } from '../operation.ts';
import { isJsonObject } from '../json.ts';

/**
 * A parameter arrives as text. Its wording when it is missing or not text says what to send:
 * a verifier who posts the paid answer as it came sends `ed25519Sig`, `attestedAt` and JSON
 * values, where the parameters are `signature`, `attested_at` and JSON text.
 */
function textParam(whenMissing: string, whenNotText: string) {
  return z.string({ error: (issue) => (issue.input === undefined ? whenMissing : typeof issue.input === 'string' ? undefined : whenNotText) });
}

const AS_IN_A_QUERY = 'as in a query string';
const jsonTextParam = (whenMissing: string) => textParam(whenMissing, `must be JSON text (the value as JSON.stringify writes it), ${AS_IN_A_QUERY}`);

/** Query-parameter building blocks: every verify parameter arrives as text. */
export const param = {
  text: () => textParam('is required', `must be text, ${AS_IN_A_QUERY}`),
  optionalText: () => z.string().default(''),
  /**
   * The record's time stamp (`member`), as RFC 8785 writes an integer: no leading zero, no plus
   * sign, within +-(2^53 - 1), so one record has one spelling.
   */
  integer: (member: string) =>
    textParam(`is required: the record's ${member}, as digits`, `must be text: the digits of the record's ${member}, ${AS_IN_A_QUERY}`)
      .regex(/^(?:0|-?[1-9]\d{0,15})$/, 'must be an integer written without leading zeros')
      .refine((text) => Number.isSafeInteger(Number(text)), 'must be an integer within +-(2^53 - 1)'),
  /** JSON carried as text (`what` it is); parsed by the route so that a tampered value fails the check, not the request. */
  json: (what: string) => jsonTextParam(`is required: ${what}, as JSON text`),
  optionalJson: (fallback: string) => jsonTextParam('is required').default(fallback),
  sha256: () => textParam("is required: the answer's sha256", `must be text, ${AS_IN_A_QUERY}`),
  signature: () => textParam("is required: the answer's ed25519Sig", `must be text, ${AS_IN_A_QUERY}`),
};

export const verifyResultSchema = z.object({
  valid: z.boolean(),
  checks: z.object({
    sha256: z.boolean(),
    signature: z.boolean(),
    output_sha256: z.boolean().optional().describe('Present when an output travelling beside the record was supplied: whether its SHA-256 equals the digest the record binds'),
  }),
  family: z.string(),
  keyId: z.string().describe("The key that made the signature (any generation; see /v1/keys/history), or the current key when none did"),
  key_generation: z.number().int().optional(),
  reason: z.string().optional(),
});

/** Thrown by a rebuild when the supplied content cannot form a record (e.g. unparsable JSON). */
export class UnusableContent extends Error {}

/**
 * A JSON parameter, read as I-JSON (kernel/rfc7493.ts): text that is not JSON cannot form the
 * record (valid: false); JSON whose numbers, strings or member names a signature could not carry
 * faithfully is refused with 422 naming the member, as on the paid routes.
 */
export function parseJsonParam(name: string, text: string): JsonValue {
  // Deeper than any record is signed; deeper still, canonicalising would overflow the stack.
  const parsed = parseIJson(text, MAX_JSON_DEPTH + 8);
  if (parsed.ok) return parsed.value as JsonValue;
  if (parsed.malformed) throw new UnusableContent(`${name} is not valid JSON`);
  throw new IJsonRefused(parsed.path === '(root)' ? name : `${name}.${parsed.path}`, parsed.reason);
}

export function parseIntegerParam(text: string): number {
  return Number.parseInt(text, 10);
}

interface VerifyRouteSpec<P extends z.ZodRawShape> {
  id: string;
  method: HttpMethod;
  path: string;
  family: Family;
  keyFamily: KeyFamily;
  summary: string;
  /** The content parameters; `signature` and `sha256` are added to every verify route. */
  params: P;
  rebuild(params: z.infer<z.ZodObject<P>>): JsonValue;
  /**
   * A further check of what the signed record binds (e.g. an output's digest): the reason it
   * fails, or undefined. Runs only when the signature is valid.
   */
  alsoCheck?(params: z.infer<z.ZodObject<P>>, record: JsonValue): string | undefined;
}

/**
 * A free verify route: rebuilds the family's canonical record from what the caller sent,
 * re-canonicalises it, and checks the digest and the signature. A missing required parameter
 * is a 422; anything that does not match is `valid: false` with the reason, never an error.
 * POST routes take their parameters from the query string as the spec says, or from a JSON
 * body with the same names (records too large for a URL).
 */
export function verifyRoute<P extends z.ZodRawShape>(spec: VerifyRouteSpec<P>): FreeRoute {
  const input = z.object({ ...spec.params, signature: param.signature(), sha256: param.sha256() });
  return freeRoute({
    id: spec.id,
    method: spec.method,
    path: spec.path,
    family: spec.family,
    summary: spec.summary,
    description: `${spec.summary} Re-canonicalises the record (RFC 8785), recomputes its SHA-256 and checks the Ed25519 signature with the ${spec.keyFamily} key. Any change to content, hash, signature or timestamp gives valid=false.`,
    input,
    inputFrom: spec.method === 'GET' ? 'query' : 'query-or-json',
    output: verifyResultSchema,
    async handle(params, deps) {
      const { keyId } = deps.keyring.publicKey(spec.keyFamily);
      const answer = { family: spec.keyFamily, keyId };
      let record: JsonValue;
      try {
        record = spec.rebuild(params as z.infer<z.ZodObject<P>>);
      } catch (err) {
        if (!(err instanceof UnusableContent)) throw err;
        return { body: { valid: false, checks: { sha256: false, signature: false }, ...answer, reason: err.message } };
      }
      const { signature, sha256 } = params as { signature: string; sha256: string };
      const result = check(deps.keyring, spec.keyFamily, record, sha256, signature);
      const { signer, ...checked } = result;
      if (!signer) return { body: { ...checked, ...answer } };
      const windowed = checkKeyWindow(signer, record, checked, spec.keyFamily);
      const further = windowed.valid ? spec.alsoCheck?.(params as z.infer<z.ZodObject<P>>, record) : undefined;
      return { body: further === undefined ? windowed : { ...windowed, valid: false, reason: further } };
    },
  });
}

/**
 * A verify route on GET and, at the same path, on POST with the same parameters as members of a
 * JSON body. A paid call can make a record whose URL passes 8 KiB (some proxies' limit) or the
 * server's 64 KiB (MAX_HEADER_BYTES): on POST the body limit holds it, and the answer is the same.
 * The POST form's id ends in `.post`, so the MCP server (whose arguments have no URL) lists one tool.
 */
export function verifyRouteOnGetAndPost<P extends z.ZodRawShape>(spec: Omit<VerifyRouteSpec<P>, 'method'>): [FreeRoute, FreeRoute] {
  return [
    verifyRoute({ ...spec, method: 'GET' }),
    verifyRoute({ ...spec, id: `${spec.id}.post`, method: 'POST', summary: `${spec.summary} POST: the same parameters as members of a JSON body, for a record too large for a URL.` }),
  ];
}

/**
 * The `alsoCheck` of a route that re-checks records of these kinds only: another operation's
 * record signed with the same family key is valid on its own route, not here.
 */
export function onlyKinds(...kinds: string[]): (params: unknown, record: JsonValue) => string | undefined {
  return (_params, record) => {
    const kind = isJsonObject(record) ? record['kind'] : undefined;
    return typeof kind === 'string' && kinds.includes(kind) ? undefined : `a ${String(kind)} record is not re-checked here (expected ${kinds.join(', ')})`;
  };
}

/** The rule of the "body" verify routes: the record itself, as JSON text. */
export const bodyVerifyParams = { body: param.json("the signed record (the answer's evidenceCore, sealed, receipt or verdictCore)") };
export const rebuildFromBody = (p: { body: string }): JsonValue => parseJsonParam('body', p.body);

/** The members of a verify answer that name the key that made the signature. */
export const signedByKey = (family: string, key: HistoricKey) => ({ family, keyId: key.keyId, key_generation: key.generation });

/** A signature of an old key on a record stamped after that key's window is not valid. */
function checkKeyWindow(key: HistoricKey, record: JsonValue, result: Omit<CheckResult, 'signer'>, family: string) {
  const answer = signedByKey(family, key);
  const stamp = signingStampOf(record);
  const inWindow = stamp === undefined || (stamp >= key.validFrom && (key.validUntil === null || stamp < key.validUntil));
  if (inWindow) return { ...result, ...answer };
  return { valid: false, checks: { ...result.checks, signature: false }, ...answer, reason: `signed with the ${family} key of generation ${key.generation} (valid ${key.validFrom} to ${key.validUntil ?? 'now'}), but the record is stamped ${stamp}: not the key of its time` };
}
