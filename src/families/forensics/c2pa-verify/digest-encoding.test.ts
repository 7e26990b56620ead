import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bytesFromNumberArray, decodeBase64, decodeDigest, normaliseAlgorithmName } from './digest-encoding.ts';

const digest = (alg: string) => createHash(alg).update('content').digest();

describe('digest encoding', () => {
  it.each(['sha256', 'sha384', 'sha512'] as const)('reads a %s digest as hex (any case) or base64 (standard or URL-safe, padded or not)', (alg) => {
    const d = digest(alg);
    expect(decodeDigest(d.toString('hex'), alg)).toEqual({ bytes: d, encoding: 'hex' });
    expect(decodeDigest(d.toString('hex').toUpperCase(), alg)?.encoding).toBe('hex');
    expect(decodeDigest(d.toString('base64'), alg)).toEqual({ bytes: d, encoding: 'base64' });
    expect(decodeDigest(d.toString('base64url'), alg)?.bytes.equals(d)).toBe(true);
  });

  it('refuses the wrong length and non-digests', () => {
    expect(decodeDigest(digest('sha384').toString('hex'), 'sha256')).toBeUndefined();
    expect(decodeDigest(digest('sha256').toString('base64'), 'sha512')).toBeUndefined();
    expect(decodeDigest('not a digest!', 'sha256')).toBeUndefined();
    expect(decodeDigest('', 'sha256')).toBeUndefined();
  });

  it('keeps hex and base64 apart by length for a given algorithm', () => {
    // 64 hex characters: a sha256 hex digest, but for sha384 it can only be base64 of 48 bytes.
    const hex64 = digest('sha256').toString('hex');
    expect(decodeDigest(hex64, 'sha256')?.encoding).toBe('hex');
    expect(decodeDigest(hex64, 'sha384')?.encoding).toBe('base64');
  });

  it('decodes base64 strictly and byte arrays', () => {
    expect(decodeBase64('a$b=')).toBeUndefined();
    expect(decodeBase64('AAE')?.equals(Buffer.from([0, 1]))).toBe(true);
    expect(bytesFromNumberArray([0, 255])?.equals(Buffer.from([0, 255]))).toBe(true);
    expect(bytesFromNumberArray([256])).toBeUndefined();
    expect(bytesFromNumberArray(['1'])).toBeUndefined();
  });

  it('normalises algorithm names', () => {
    expect(normaliseAlgorithmName('SHA-256')).toBe('sha256');
    expect(normaliseAlgorithmName('sha_512')).toBe('sha512');
  });
});
