import type { CallContext, PricedOperation } from './operation.ts';
import type { RecordText } from './record-text.ts';
import type { JsonObject } from '../signing/rfc8785.ts';
import { canonicalForm, sealOffTheLoop, type Seal } from '../signing/seal.ts';
import type { KeyFamily } from '../signing/key-families.ts';
import { KEY_FAMILIES } from '../signing/key-families.ts';
import { jsonExtendingObjectText, jsonWithMemberText } from './spliced-json.ts';

export interface SignedResult {
  record: JsonObject;
  seal: Seal;
  /** The 200 response body, as presented to the caller. */
  body: JsonObject;
  /** JSON.stringify(record) as UTF-8, when the command brought it (CommandResult.recordText): stored as it is. */
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
  const result = await op.command.execute(input, ctx, handoff);
  const { beside, firstSignedAt, canonical, recordText } = result;
  if (firstSignedAt !== undefined && firstSignedAt > ctx.now) throw new Error(`${op.id}: a record first signed at ${firstSignedAt}, after this call's clock ${ctx.now}`);
  // A record made on an engine thread comes with its canonical bytes: only the signature is made here.
  const s = await sealOffTheLoop(ctx.keyring, op.keyFamily, canonical ?? canonicalForm(result.record), firstSignedAt);
  const stamp = firstSignedAt === undefined ? {} : { firstSignedAt };
  if (!recordText) {
    const { record } = result;
    return { record, seal: s, body: presentSignedResult(op, record, s, ctx.baseUrl, beside), ...stamp };
  }
  // The record as text: stored and answered from it, and read as an object only if someone asks.
  const bodyJson = signedBodyJson(op, s, ctx.baseUrl, recordText, beside);
  let body: JsonObject | undefined;
  return {
    get record(): JsonObject {
      return result.record;
    },
    seal: s,
    get body(): JsonObject {
      return (body ??= presentSignedResult(op, result.record, s, ctx.baseUrl, beside));
    },
    recordJson: recordText.json,
    ...(bodyJson ? { bodyJson } : {}),
    ...stamp,
  };
}

/**
 * JSON.stringify of the body presentSignedResult makes, assembled around the record's JSON text
 * without reading the record, or undefined where that text cannot simply be surrounded (a verify
 * URL filled from the record, a member that would replace one of the record's; see
 * jsonExtendingObjectText): the caller then serialises the body.
 */
function signedBodyJson(op: PricedOperation, s: Seal, baseUrl: string, recordText: RecordText, beside: JsonObject = {}): Uint8Array | undefined {
  if (op.verifyPath?.includes('{')) return undefined;
  const envelope = signedEnvelope(op, s, baseUrl, {});
  if (!op.signedMember) return jsonExtendingObjectText(recordText.json, recordText.keys, { ...envelope, ...beside });
  if (Object.hasOwn(envelope, op.signedMember) || Object.hasOwn(beside, op.signedMember)) return undefined;
  return jsonWithMemberText({ [op.signedMember]: null, ...envelope, ...beside }, op.signedMember, recordText.json);
}

/**
 * The response shape of spec section 2: field-by-field families at the top level, the others
 * under their signed member; always with the digest, the signature, the key id, and where to
 * re-check it for free. Deterministic, so a replayed payment yields the same bytes.
 */
export function presentSignedResult(op: PricedOperation, record: JsonObject, s: Seal, baseUrl: string, beside: JsonObject = {}): JsonObject {
  const envelope = signedEnvelope(op, s, baseUrl, record);
  return op.signedMember ? { [op.signedMember]: record, ...envelope, ...beside } : { ...record, ...envelope, ...beside };
}

/** The digest, the signature, the key id, and where to re-check the record (its verify URL may name the record's id). */
function signedEnvelope(op: PricedOperation, s: Seal, baseUrl: string, record: JsonObject): JsonObject {
  const keyFamily = op.keyFamily as KeyFamily;
  return {
    sha256: s.sha256,
    ed25519Sig: s.ed25519Sig,
    keyId: s.keyId,
    publicKeyUrl: `${baseUrl}${KEY_FAMILIES[keyFamily]}`,
    ...(op.verifyPath ? { verifyUrl: `${baseUrl}${fillPathTemplate(op.verifyPath, record)}` } : {}),
  };
}

/** A read-back route names its record in the path (`{attestation_id}`): fill it from the record. */
function fillPathTemplate(path: string, record: JsonObject): string {
  return path.replace(/\{([A-Za-z_]+)\}/g, (template, name: string) => {
    const value = record[name];
    return typeof value === 'string' ? encodeURIComponent(value) : template;
  });
}
