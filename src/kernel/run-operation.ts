import type { CallContext, PricedOperation } from './operation.ts';
import type { JsonObject } from '../signing/rfc8785.ts';
import { seal, sealCanonical, type Seal } from '../signing/seal.ts';
import type { KeyFamily } from '../signing/key-families.ts';
import { KEY_FAMILIES } from '../signing/key-families.ts';
import { jsonExtendingObjectText, jsonWithMemberText } from './spliced-json.ts';

export interface SignedResult {
  record: JsonObject;
  seal: Seal;
  /** The 200 response body, as presented to the caller. */
  body: JsonObject;
  /** JSON.stringify(record) as UTF-8, when the command brought it (CommandResult.recordJson): stored as it is. */
  recordJson?: Uint8Array;
  /** JSON.stringify(body) as UTF-8, assembled around recordJson: answered as it is. */
  bodyJson?: Uint8Array;
  /** A stored record answered again: when it was first signed, the time its key was chosen by (CommandResult). */
  firstSignedAt?: number;
}

export class NotImplementedError extends Error {
  constructor(readonly operation: string) {
    super(`${operation} is catalogued but not built yet`);
    this.name = 'NotImplementedError';
  }
}

/**
 * Runs an operation's command and seals its record with the operation's family key. `handoff`:
 * what its precheck handed over in this request (checkBeforeQuote), if anything.
 */
export async function runOperation<I, H>(op: PricedOperation<I, H>, input: I, ctx: CallContext, handoff?: H): Promise<SignedResult> {
  if (!op.command || !op.keyFamily) throw new NotImplementedError(op.id);
  const { record, beside, firstSignedAt, canonical, recordJson } = await op.command.execute(input, ctx, handoff);
  if (firstSignedAt !== undefined && firstSignedAt > ctx.now) throw new Error(`${op.id}: a record first signed at ${firstSignedAt}, after this call's clock ${ctx.now}`);
  // A record made on an engine thread comes with its canonical bytes: only the signature is made here.
  const s = canonical ? sealCanonical(ctx.keyring, op.keyFamily, canonical, firstSignedAt) : seal(ctx.keyring, op.keyFamily, record, firstSignedAt);
  const body = presentSignedResult(op, record, s, ctx.baseUrl, beside);
  const bodyJson = recordJson && signedBodyJson(op, body, record, recordJson);
  return { record, seal: s, body, ...(recordJson ? { recordJson } : {}), ...(bodyJson ? { bodyJson } : {}), ...(firstSignedAt === undefined ? {} : { firstSignedAt }) };
}

/**
 * JSON.stringify(body) made around the record's JSON text instead of by walking the record again,
 * or undefined where the body's members would not simply surround the record's (see
 * jsonExtendingObjectText): the caller then serialises the body.
 */
function signedBodyJson(op: PricedOperation, body: JsonObject, record: JsonObject, recordJson: Uint8Array): Uint8Array | undefined {
  if (op.signedMember) return body[op.signedMember] === record ? jsonWithMemberText(body, op.signedMember, recordJson) : undefined;
  // The record's members spread first: the body may only add to them, never replace one.
  const extra: JsonObject = {};
  for (const name of Object.keys(body)) {
    if (!Object.hasOwn(record, name)) extra[name] = body[name]!;
    else if (body[name] !== record[name]) return undefined;
  }
  return jsonExtendingObjectText(recordJson, Object.keys(record), extra);
}

/**
 * The response shape of spec section 2: field-by-field families at the top level, the others
 * under their signed member; always with the digest, the signature, the key id, and where to
 * re-check it for free. Deterministic, so a replayed payment yields the same bytes.
 */
export function presentSignedResult(op: PricedOperation, record: JsonObject, s: Seal, baseUrl: string, beside: JsonObject = {}): JsonObject {
  const keyFamily = op.keyFamily as KeyFamily;
  const envelope: JsonObject = {
    sha256: s.sha256,
    ed25519Sig: s.ed25519Sig,
    keyId: s.keyId,
    publicKeyUrl: `${baseUrl}${KEY_FAMILIES[keyFamily]}`,
    ...(op.verifyPath ? { verifyUrl: `${baseUrl}${fillPathTemplate(op.verifyPath, record)}` } : {}),
  };
  return op.signedMember ? { [op.signedMember]: record, ...envelope, ...beside } : { ...record, ...envelope, ...beside };
}

/** A read-back route names its record in the path (`{attestation_id}`): fill it from the record. */
function fillPathTemplate(path: string, record: JsonObject): string {
  return path.replace(/\{([A-Za-z_]+)\}/g, (template, name: string) => {
    const value = record[name];
    return typeof value === 'string' ? encodeURIComponent(value) : template;
  });
}
