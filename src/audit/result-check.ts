import { z } from 'zod';
import { resultSignedSchema } from '../payments/saga/events.ts';
import type { RecordedEvent } from '../events/port.ts';
import { isKeyFamily } from '../signing/key-families.ts';
import type { HistoricKey } from '../signing/keyring.ts';
import type { JsonValue } from '../signing/rfc8785.ts';
import type { AuditFailure } from '../kernel/audit-failure.ts';
import type { SignatureJob, SignatureVerdict } from './signature-job.ts';

/** The public keys an audit needs: every generation's key with its window. No secret. */
export interface AuditKeys {
  keyById(keyId: string): HistoricKey | undefined;
  history(): HistoricKey[];
}

/**
 * The public keys indexed once for the whole audit: a keyring builds its history afresh on every
 * call, and an audit asks for each result's keys.
 */
export class AuditKeyIndex {
  private readonly byId = new Map<string, HistoricKey>();
  private readonly byFamily = new Map<string, HistoricKey[]>();

  constructor(keys: AuditKeys) {
    for (const key of keys.history()) {
      this.byId.set(key.keyId, key);
      const family = this.byFamily.get(key.family);
      if (family) family.push(key);
      else this.byFamily.set(key.family, [key]);
    }
  }

  keyById(keyId: string): HistoricKey | undefined {
    return this.byId.get(keyId);
  }

  /** The family's public keys (hex) whose window holds `at`. */
  publicKeysAt(family: string, at: number): string[] {
    return (this.byFamily.get(family) ?? []).filter((k) => inWindow(k, at)).map((k) => k.publicKeyHex);
  }
}

/**
 * The event's shape, its record checked only as an object here: the record's every value is
 * checked where it is canonicalised (the verifying thread), so the log is not walked twice.
 */
const screenedSchema = resultSignedSchema.extend({ record: z.record(z.string(), z.unknown()) });

type Where = Pick<AuditFailure, 'stream' | 'position' | 'revision' | 'eventId'>;

export interface ScreenedResult {
  /** What the event alone shows: its schema, its key family, its key id and window. */
  failures: AuditFailure[];
  /** The digest and signature left to verify, with the keys that may have made it. */
  job?: SignatureJob;
  where: Where;
  family?: string;
}

/**
 * The cheap part of re-checking one ResultSigned event, done in log order: the key must be the
 * family's key of the generation valid when the result was signed. The hash and signature are
 * verified afterwards (possibly on other threads) from the returned job.
 */
export function screenSignedResult(event: RecordedEvent, keys: AuditKeyIndex): ScreenedResult {
  const where: Where = { stream: event.stream, position: event.position, revision: event.revision, eventId: event.id };
  const parsed = screenedSchema.safeParse(event.data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'data'}: ${i.message}`).join('; ');
    return { where, failures: [{ kind: 'result-schema', ...where, message: `ResultSigned does not match its schema: ${issues}` }] };
  }
  const result = parsed.data;
  if (!isKeyFamily(result.keyFamily))
    return { where, failures: [{ kind: 'result-key-family', ...where, message: `unknown key family ${JSON.stringify(result.keyFamily)}` }] };
  const failures: AuditFailure[] = [];
  const key = keys.keyById(result.keyId);
  if (!key || key.family !== result.keyFamily)
    failures.push({ kind: 'result-key-id', ...where, message: `keyId ${result.keyId} is no ${result.keyFamily} key of this service` });
  else if (!inWindow(key, result.signedAt))
    failures.push({ kind: 'result-key-window', ...where, message: `signed at ${result.signedAt} with key ${result.keyId}, valid from ${key.validFrom} until ${key.validUntil ?? 'now'}` });
  const publicKeys = keys.publicKeysAt(result.keyFamily, result.signedAt);
  return { where, failures, family: result.keyFamily, job: { record: result.record as JsonValue, sha256: result.sha256, signature: result.ed25519Sig, publicKeys } };
}

/** The failures a verified job shows. */
export function verdictFailures(screened: ScreenedResult, verdict: SignatureVerdict): AuditFailure[] {
  const failures: AuditFailure[] = [];
  if (!verdict.sha256) failures.push({ kind: 'result-sha256', ...screened.where, message: `sha256 does not match the canonical record${verdict.reason ? ` (${verdict.reason})` : ''}` });
  if (!verdict.signature) failures.push({ kind: 'result-signature', ...screened.where, message: `ed25519Sig does not verify against the ${screened.family} public key valid at its signing time` });
  return failures;
}

const inWindow = (key: HistoricKey, at: number) => at >= key.validFrom && (key.validUntil === null || at < key.validUntil);
