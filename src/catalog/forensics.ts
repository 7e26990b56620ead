import { plannedOperation } from './planned.ts';
import { attestationReadBack } from './read-back.ts';
import type { Route } from './types.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRoute } from './verify-route.ts';

export const forensicsRoutes: Route[] = [
  plannedOperation({ id: 'data.c2pa.verify', method: 'POST', path: '/v1/data/c2pa/verify', family: 'forensics', priceUsd: '0.25', summary: 'Verifies a provenance claim against a caller-supplied content hash; persisted under attestation_id.', keyFamily: 'c2pa', signedMember: 'evidenceCore', verifyPath: '/v1/data/c2pa/attestation/{attestation_id}' }),
  plannedOperation({ id: 'data.signed-snapshot', method: 'POST', path: '/v1/data/signed-snapshot', family: 'forensics', priceUsd: '0.30', summary: 'Seals series rows and source citations into one signed snapshot with a freshness tier.', keyFamily: 'data', signedMember: 'evidenceCore', verifyPath: '/v1/data/verify' }),
  plannedOperation({ id: 'evidence.ingest', method: 'POST', path: '/v1/evidence/ingest', family: 'forensics', priceUsd: '0.20', summary: 'Seals one evidence record; returns entryId.', keyFamily: 'evidence', signedMember: 'sealed', verifyPath: '/v1/evidence/verify' }),
  plannedOperation({ id: 'evidence.query', method: 'POST', path: '/v1/evidence/query', family: 'forensics', priceUsd: '0.15', summary: 'Binds a set of sealed entries into one signed receipt.', keyFamily: 'evidence', signedMember: 'receipt', verifyPath: '/v1/evidence/verify' }),

  verifyRoute({ id: 'evidence.verify', method: 'GET', path: '/v1/evidence/verify', family: 'forensics', keyFamily: 'evidence', summary: 'Re-checks an evidence ingest (sealed) or query (receipt) record.', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  verifyRoute({ id: 'data.verify', method: 'GET', path: '/v1/data/verify', family: 'forensics', keyFamily: 'data', summary: 'Re-checks a signed data snapshot (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  attestationReadBack({ id: 'data.c2pa.attestation', path: '/v1/data/c2pa/attestation/:attestation_id', family: 'forensics', keyFamily: 'c2pa', streamPrefix: 'c2pa', eventType: 'C2paAttestationRecorded', summary: 'Read-back of a persisted C2PA attestation.' }),
];
