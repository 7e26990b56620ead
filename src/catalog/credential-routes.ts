import { z } from 'zod';
import { freeRoute, type FreeRoute } from '../kernel/operation.ts';
import type { JsonObject } from '../signing/rfc8785.ts';
import { addProof, didKeyOf } from '../transparency/eddsa-jcs-2022.ts';

const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
const isoOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');

/**
 * Any logged result, re-issued as a W3C Verifiable Credential (VC Data Model 2.0) secured with
 * Data Integrity eddsa-jcs-2022 by the `credentials` key as a did:key, so that existing VC
 * verifiers check our results without our code. The record is the credentialSubject verbatim;
 * its original Ed25519 seal is the credential's evidence. Deterministic: the same result always
 * gives the same credential (the proof's time is the result's signing time; Ed25519 is
 * deterministic).
 */
export const credentialRoutes: FreeRoute[] = [
  freeRoute({
    id: 'credentials.result',
    method: 'GET',
    path: '/v1/credentials/:sha256',
    family: 'service',
    summary: 'A logged result as a W3C Verifiable Credential secured with eddsa-jcs-2022 (did:key issuer).',
    description:
      'The record is the credentialSubject; the issuer is the did:key of the credentials key (GET /v1/credentials/public-key); the proof is a DataIntegrityProof with cryptosuite eddsa-jcs-2022. 404 for a digest the result log does not hold.',
    input: z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters') }).strict(),
    inputFrom: 'path',
    output: z.looseObject({ '@context': z.array(z.string()), type: z.array(z.string()), issuer: z.string(), credentialSubject: z.looseObject({}), proof: z.looseObject({}) }),
    produces: 'application/vc+ld+json',
    handle: async (input: { sha256: string }, deps) => {
      if (!deps.resultLog) return { status: 503, body: { error: 'result_log_off', message: 'the result log is switched off on this service (RESULT_LOG=off)' } };
      const result = await deps.resultLog.signedResult(input.sha256);
      if (!result) return { status: 404, body: { error: 'not_logged', message: 'no signed result with this sha256 is in the log' } };
      const key = deps.keyring.publicKey('credentials');
      const { did, verificationMethod } = didKeyOf(Buffer.from(key.publicKeyHex, 'hex'));
      const credential: JsonObject = {
        '@context': [VC_V2_CONTEXT],
        id: `${deps.baseUrl}/v1/log/result/${result.sha256}`,
        type: ['VerifiableCredential', 'AttestationResultCredential'],
        issuer: did,
        validFrom: isoOf(result.signed_at),
        credentialSubject: result.record,
        evidence: [
          { id: `${deps.baseUrl}/v1/log/proof/inclusion?sha256=${result.sha256}`, type: ['Ed25519ResultSeal'], operation: result.operation, key_family: result.key_family, key_id: result.key_id, sha256: result.sha256, ed25519Sig: result.ed25519Sig, leaf_index: result.leaf_index },
        ],
      };
      const secured = addProof(credential, { verificationMethod, created: isoOf(result.signed_at) }, (m) => Buffer.from(deps.keyring.sign('credentials', m), 'hex'));
      return { body: secured, headers: { 'Content-Type': 'application/vc+ld+json' } };
    },
  }),
];
