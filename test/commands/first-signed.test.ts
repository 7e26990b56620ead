import { describe, expect, it } from 'vitest';
import { findOperation } from '../../src/catalog/index.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { runOperation } from '../../src/kernel/run-operation.ts';
import { signingStampOf } from '../../src/kernel/signing-stamp.ts';
import type { KeyFamily } from '../../src/signing/key-families.ts';
import { createRotatingKeyring } from '../../src/signing/keyring.ts';
import { check } from '../../src/signing/seal.ts';
import { signedOf } from '../../src/payments/saga/claim.ts';
import { PAYER_B, testCallContext } from '../support/call-context.ts';

const ROTATED_AT = 2_000_000_000;
const BEFORE = ROTATED_AT - 86_400;
const AFTER = ROTATED_AT + 86_400;

/** Operations that keep the first record for everyone who sends the same content, and answer it again. */
const FIRST_RECORD_KEPT = ['bureau.audit', 'evidence.ingest', 'data.c2pa.verify', 'security.threatmodel'];

describe('a stored record answered again after a key rotation', () => {
  it.each(FIRST_RECORD_KEPT)('%s: sealed with the key of its time, the signature first given, valid on its verify route', async (id) => {
    const op = findOperation(id)!;
    let clock = BEFORE;
    const keyring = createRotatingKeyring(
      [
        { generation: 0, validFrom: 0, secret: 'generation-0-secret-0123456789abcdef' },
        { generation: 1, validFrom: ROTATED_AT, secret: 'generation-1-secret-0123456789abcdef' },
      ],
      () => clock,
    );
    const store = createMemoryEventStore();
    const first = await runOperation(op, op.example, testCallContext({ store, keyring, now: BEFORE }));
    clock = AFTER;
    const again = await runOperation(op, op.example, testCallContext({ store, keyring, now: AFTER, payer: PAYER_B }));
    expect(again.record).toEqual(first.record);
    expect(again.seal).toEqual(first.seal);
    expect(again.seal.keyId).toBe(keyring.publicKey(op.keyFamily as KeyFamily, BEFORE).keyId);
    expect(again.seal.keyId).not.toBe(keyring.publicKey(op.keyFamily as KeyFamily).keyId);
    const stamp = signingStampOf(again.record);
    expect(stamp).toBe(BEFORE);
    expect(check(keyring, op.keyFamily as KeyFamily, again.record, again.seal.sha256, again.seal.ed25519Sig, stamp).valid).toBe(true);
    // The event log says it was signed at its first time, so the audit holds it to that key's window.
    expect(signedOf(op, again, AFTER).signedAt).toBe(BEFORE);
    // A record made now is signed with the current key.
    const fresh = await runOperation(findOperation('veritrack.attest')!, { kind: 'model-eval', claim: { score: 1 } }, testCallContext({ store, keyring, now: AFTER }));
    expect(fresh.seal.keyId).toBe(keyring.publicKey('veritrack').keyId);
  });
});
