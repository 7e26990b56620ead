import { parse } from 'node:querystring';
import Koa from 'koa';
import { veritrackRecord } from '../../src/kernel/route-kit/records.ts';
import { canonicalBytes } from '../../src/signing/rfc8785.ts';
import { sha256Hex } from '../../src/signing/hash.ts';
import { createKeyring } from '../../src/signing/keyring.ts';

// The floor for a verify route on Koa: one handler, no router, middleware, schema or error body.
const keyring = createKeyring(process.env.ATTESTATION_SECRET!);
const app = new Koa();
app.use((ctx) => {
  const q = parse(ctx.querystring) as Record<string, string>;
  const bytes = canonicalBytes(veritrackRecord({ kind: q.kind!, attestedAt: Number(q.attested_at), claim: JSON.parse(q.claim!) }));
  const hashOk = sha256Hex(bytes) === q.sha256;
  const signatureOk = keyring.verify('veritrack', bytes, q.signature!);
  ctx.body = { valid: hashOk && signatureOk, checks: { sha256: hashOk, signature: signatureOk } };
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
