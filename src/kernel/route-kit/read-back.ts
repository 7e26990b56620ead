import { z } from 'zod';
import type { JsonObject } from '../../signing/rfc8785.ts';
import { KEY_FAMILIES, type KeyFamily } from '../../signing/key-families.ts';
import { canonicalBytes } from '../../signing/rfc8785.ts';
import { sha256Hex } from '../../signing/hash.ts';
import { seal, type Seal } from '../../signing/seal.ts';
import type { ServiceDeps } from '../operation.ts';
import { signatureEnvelope } from './schemas.ts';
import { signingStampOf } from '../signing-stamp.ts';
import { freeRoute, type Family, type FreeResponse, type FreeRoute } from '../operation.ts';

/** Stream that holds the persisted attestation `id` of a read-back family. */
export function attestationStream(prefix: string, attestationId: string): string {
  return `${prefix}-${attestationId}`;
}

/** Data of the event that persists an attestation: its id and the signed record. */
export const attestationRecordedSchema = z.object({ attestation_id: z.string(), evidenceCore: z.record(z.string(), z.json()) });

const attestationId = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 characters: letters, digits and . _ : -');

/**
 * The seal the paid call returned: from the result log when it holds the record, otherwise signed
 * again with the key of the record's signing stamp, which gives the very same bytes
 * (Ed25519 is deterministic), before a key rotation or after it.
 */
async function originalSeal(deps: ServiceDeps, family: KeyFamily, record: JsonObject): Promise<Seal> {
  const logged = await deps.resultLog?.signedResult(sha256Hex(canonicalBytes(record)));
  if (logged && logged.key_family === family) return { sha256: logged.sha256, ed25519Sig: logged.ed25519Sig, keyId: logged.key_id };
  return seal(deps.keyring, family, record, signingStampOf(record));
}

/**
 * Free read-back of a persisted attestation by id. It reads the attestation's own stream (never
 * a lagging projection), so a read right after the paid call sees it, with the seal the paid
 * call returned.
 */
export function attestationReadBack(spec: {
  id: string;
  path: string;
  family: Family;
  keyFamily: KeyFamily;
  streamPrefix: string;
  eventType: string;
  summary: string;
}): FreeRoute {
  return freeRoute({
    id: spec.id,
    method: 'GET',
    path: spec.path,
    family: spec.family,
    summary: spec.summary,
    description: `${spec.summary} Returns the persisted evidenceCore with its sha256 and ed25519Sig; an unknown id returns found=false.`,
    input: z.object({ attestation_id: attestationId }),
    inputFrom: 'path',
    output: z.union([
      z.object({ found: z.literal(true), attestation_id: z.string(), evidenceCore: z.record(z.string(), z.json()), ...signatureEnvelope }),
      z.object({ found: z.literal(false), attestation_id: z.string() }),
    ]),
    async handle({ attestation_id }, deps): Promise<FreeResponse> {
      const events = await deps.store.readStream(attestationStream(spec.streamPrefix, attestation_id), { direction: 'backwards' });
      const recorded = events.find((e) => e.type === spec.eventType);
      if (!recorded) return { body: { found: false, attestation_id } };
      const { evidenceCore } = attestationRecordedSchema.parse(recorded.data);
      const s = await originalSeal(deps, spec.keyFamily, evidenceCore as JsonObject);
      return {
        body: {
          found: true,
          attestation_id,
          evidenceCore: evidenceCore as JsonObject,
          sha256: s.sha256,
          ed25519Sig: s.ed25519Sig,
          keyId: s.keyId,
          publicKeyUrl: `${deps.baseUrl}${KEY_FAMILIES[spec.keyFamily]}`,
        },
      };
    },
  });
}
