import { describe, expect, it } from 'vitest';
import { pricedOperations } from '../../src/catalog/index.ts';
import { runOperation } from '../../src/kernel/run-operation.ts';
import { canonicalBytes } from '../../src/signing/rfc8785.ts';
import { seal } from '../../src/signing/seal.ts';
import { sha256Hex } from '../../src/signing/hash.ts';
import { testCallContext } from '../support/call-context.ts';

const threaded = pricedOperations().filter((op) => op.command?.runsOnEngineThread);

describe('a record made on an engine thread is sealed over the canonical bytes the thread made', () => {
  it('every threaded operation but doc-convert (whose receipt is built on the event loop) brings its record\'s canonical form', async () => {
    const ctx = testCallContext();
    const withCanonical: string[] = [];
    for (const op of threaded) if ((await op.command!.execute(op.example, ctx)).canonical) withCanonical.push(op.id);
    expect(withCanonical.sort()).toEqual(['research.attested-brief', 'sec-extract', 'security.dependency-risk', 'utils.code-review-brief', 'utils.pii-redact', 'utils.translate-doc']);
  }, 120_000);

  it.each(threaded.map((op) => [op.id, op] as const))('%s: the same bytes, digest and signature as the record sealed on the event loop', async (_id, op) => {
    const ctx = testCallContext();
    const result = await op.command!.execute(op.example, ctx);
    const { record, canonical } = result;
    // The old way: the record as it arrived from the thread, canonicalised and signed here.
    const bytes = canonicalBytes(record);
    const sealedHere = seal(ctx.keyring, op.keyFamily!, record, result.firstSignedAt);
    if (canonical) {
      expect(Buffer.from(canonical.bytes).equals(bytes)).toBe(true);
      expect(canonical.sha256).toBe(sha256Hex(bytes));
    }
    const signed = await runOperation(op, op.example, ctx);
    expect(signed.record).toEqual(record);
    expect(signed.seal).toEqual(sealedHere);
    expect(signed.seal.sha256).toBe(sha256Hex(bytes));
  }, 60_000);
});
