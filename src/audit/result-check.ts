import { resultSignedSchema } from '../payments/saga/events.ts';
import type { RecordedEvent } from '../events/port.ts';
import { isKeyFamily } from '../signing/key-families.ts';
import type { Keyring } from '../signing/keyring.ts';
import { check } from '../signing/seal.ts';
import type { AuditFailure } from '../kernel/audit-failure.ts';

/**
 * Re-verifies one ResultSigned event as an outside verifier would: the record re-canonicalised
 * and hashed, the signature checked over those bytes with the public key of the named family,
 * and the keyId matched to that key.
 */
export function checkSignedResult(event: RecordedEvent, keyring: Keyring): AuditFailure[] {
  const at = { stream: event.stream, position: event.position, revision: event.revision, eventId: event.id };
  const parsed = resultSignedSchema.safeParse(event.data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'data'}: ${i.message}`).join('; ');
    return [{ kind: 'result-schema', ...at, message: `ResultSigned does not match its schema: ${issues}` }];
  }
  const result = parsed.data;
  if (!isKeyFamily(result.keyFamily))
    return [{ kind: 'result-key-family', ...at, message: `unknown key family ${JSON.stringify(result.keyFamily)}` }];
  const failures: AuditFailure[] = [];
  // The key must be the family's key of the generation valid when the result was signed.
  const key = keyring.keyById(result.keyId);
  if (!key || key.family !== result.keyFamily)
    failures.push({ kind: 'result-key-id', ...at, message: `keyId ${result.keyId} is no ${result.keyFamily} key of this service` });
  else if (result.signedAt < key.validFrom || (key.validUntil !== null && result.signedAt >= key.validUntil))
    failures.push({ kind: 'result-key-window', ...at, message: `signed at ${result.signedAt} with key ${result.keyId}, valid from ${key.validFrom} until ${key.validUntil ?? 'now'}` });
  const outcome = check(keyring, result.keyFamily, result.record, result.sha256, result.ed25519Sig, result.signedAt);
  if (!outcome.checks.sha256)
    failures.push({ kind: 'result-sha256', ...at, message: `sha256 does not match the canonical record${outcome.reason?.startsWith('record cannot') ? ` (${outcome.reason})` : ''}` });
  if (!outcome.checks.signature)
    failures.push({ kind: 'result-signature', ...at, message: `ed25519Sig does not verify against the ${result.keyFamily} public key` });
  return failures;
}
