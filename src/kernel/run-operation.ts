import type { CallContext, PricedOperation } from './operation.ts';
import type { JsonObject } from '../signing/rfc8785.ts';
import { seal, sealCanonical, type Seal } from '../signing/seal.ts';
import type { KeyFamily } from '../signing/key-families.ts';
import { KEY_FAMILIES } from '../signing/key-families.ts';

export interface SignedResult {
  record: JsonObject;
  seal: Seal;
  /** The 200 response body, as presented to the caller. */
  body: JsonObject;
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
  const { record, beside, firstSignedAt, canonical } = await op.command.execute(input, ctx, handoff);
  if (firstSignedAt !== undefined && firstSignedAt > ctx.now) throw new Error(`${op.id}: a record first signed at ${firstSignedAt}, after this call's clock ${ctx.now}`);
  // A record made on an engine thread comes with its canonical bytes: only the signature is made here.
  const s = canonical ? sealCanonical(ctx.keyring, op.keyFamily, canonical, firstSignedAt) : seal(ctx.keyring, op.keyFamily, record, firstSignedAt);
  return { record, seal: s, body: presentSignedResult(op, record, s, ctx.baseUrl, beside), ...(firstSignedAt === undefined ? {} : { firstSignedAt }) };
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
