import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ED25519_NOTE_TYPE, noteKeyId, noteSignatureLine, openCheckpoint, signatureLine, signCheckpoint, type NoteSigner } from './c2sp-checkpoint.ts';

/**
 * The example key and note of the reference implementation of signed notes (Go's
 * golang.org/x/mod/sumdb/note, whose format C2SP signed-note writes down): what a Go witness
 * or verifier makes and expects, byte for byte. Ed25519 is deterministic, so signing its text
 * with its key must give its very signature line.
 */
const VERIFIER_KEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const SIGNER_KEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const SIGNATURE_LINE = '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A key of the reference format, `<name>+<id>+<base64(type || key)>`, taken apart. */
function keyParts(key: string): { name: string; id: string; type: number; key: Buffer } {
  // The base64 of the key may hold plus signs itself: only the first two separate fields.
  const [name, id, ...material] = key.replace(/^PRIVATE\+KEY\+/, '').split('+') as [string, string, ...string[]];
  const bytes = Buffer.from(material.join('+'), 'base64');
  return { name, id, type: bytes[0]!, key: bytes.subarray(1) };
}

const referenceSigner = (): NoteSigner => {
  const { name, key: seed } = keyParts(SIGNER_KEY);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  return { name, publicKey, sign: (message) => sign(null, message, privateKey) };
};

describe('C2SP signed notes against the reference implementation\'s example', () => {
  it('derives the example key\'s id, and its signer has the example\'s public key', () => {
    const verifier = keyParts(VERIFIER_KEY);
    expect(verifier.type).toBe(ED25519_NOTE_TYPE);
    expect(noteKeyId(verifier.name, ED25519_NOTE_TYPE, verifier.key).toString('hex')).toBe(verifier.id);
    expect(Buffer.from(referenceSigner().publicKey).equals(verifier.key)).toBe(true);
  });

  it('signs the example text to the example\'s signature line, byte for byte', () => {
    expect(noteSignatureLine(referenceSigner(), TEXT)).toBe(SIGNATURE_LINE);
    expect(signatureLine(SIGNATURE_LINE.trimEnd())).toMatchObject({ name: 'PeterNeumann' });
  });

  it('a checkpoint signed with the example key opens with it, and its note signature is the one the reference would make over the same body', () => {
    const signer = referenceSigner();
    const root = 'ab'.repeat(32);
    const note = signCheckpoint(signer, 'PeterNeumann', 7, root, 1_767_225_600);
    const verifier = keyParts(VERIFIER_KEY);
    expect(openCheckpoint(note, 'PeterNeumann', verifier.key.toString('hex'))).toEqual({ valid: true, checkpoint: { origin: 'PeterNeumann', treeSize: 7, rootHash: root, issuedAt: 1_767_225_600 } });
    const body = note.slice(0, note.indexOf('\n\n') + 1);
    expect(note.startsWith(`${body}\n${noteSignatureLine(signer, body)}`)).toBe(true);
  });
});
