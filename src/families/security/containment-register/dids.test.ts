import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDid, checkDid } from './dids.ts';

describe('canonicalDid: one text for the spellings of one DID', () => {
  it('lowers a did:web host and a did:pkh address, decodes needless percent-encodings and keeps the rest', () => {
    expect(canonicalDid('did:web:Example.COM')).toBe('did:web:example.com');
    expect(canonicalDid('did:web:example%2Ecom:Users:Alice')).toBe('did:web:example.com:Users:Alice');
    expect(canonicalDid('did:web:example.com%3a8443')).toBe('did:web:example.com%3A8443');
    expect(canonicalDid('did:pkh:eip155:1:0xAbCdEf0123456789abcdef0123456789ABCDEF01')).toBe('did:pkh:eip155:1:0xabcdef0123456789abcdef0123456789abcdef01');
    // Other spellings of one host and one chain (found by fuzzing: each registered a second agent).
    expect(canonicalDid('did:web:victim.example.com.')).toBe('did:web:victim.example.com');
    expect(canonicalDid('did:web:Victim.example.com.:agents:a')).toBe('did:web:victim.example.com:agents:a');
    expect(canonicalDid('did:web:victim.example.com%3A443')).toBe('did:web:victim.example.com');
    expect(canonicalDid('did:web:victim.example.com.%3a0443')).toBe('did:web:victim.example.com');
    expect(canonicalDid('did:web:victim.example.com%3A08443')).toBe('did:web:victim.example.com%3A8443');
    expect(canonicalDid('did:pkh:eip155:08453:0xAbCdEf0123456789abcdef0123456789ABCDEF01')).toBe('did:pkh:eip155:8453:0xabcdef0123456789abcdef0123456789abcdef01');
    // The host a resolver reaches: full-width and ideographic dots, a soft hyphen, Unicode letters (punycode).
    expect(canonicalDid('did:web:victim-agent%EF%BC%8Eexample')).toBe('did:web:victim-agent.example');
    expect(canonicalDid('did:web:example%E3%80%82com')).toBe('did:web:example.com');
    expect(canonicalDid('did:web:exam%C2%ADple.com')).toBe('did:web:example.com');
    expect(canonicalDid('did:web:%C3%A9xample.com:users:alice')).toBe('did:web:xn--xample-9ua.com:users:alice');
    // Never another host than the one written: user info or a path stays as written.
    expect(canonicalDid('did:web:victim.example%40attacker.com')).toBe('did:web:victim.example%40attacker.com');
    expect(canonicalDid('did:web:a%2Fb.example')).toBe('did:web:a%2Fb.example');
    // Found by the property below: the host parser reads a number as an IPv4 address, so canonical twice is canonical once.
    expect(canonicalDid('did:web:0%2E%2E:%2Ea')).toBe('did:web:0.0.0.0:.a');
    expect(canonicalDid('did:web:0.0.0.0:.a')).toBe('did:web:0.0.0.0:.a');
    expect(canonicalDid('did:web:0.%E3%80%82:aa')).toBe('did:web:0.0.0.0:aa');
    const didKey = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
    expect(canonicalDid(didKey)).toBe(didKey);
    for (const notADid of ['DID:WEB:example.com', ' did:web:example.com', 'did:web:example.com\u200b', 'anything']) expect(canonicalDid(notADid)).toBe(notADid);
  });

  it('is idempotent and keeps a valid DID valid', () => {
    const segment = fc.array(fc.oneof(fc.constantFrom(...'aZ09._-'), fc.constantFrom('%2E', '%2e', '%3A', '%3a', '%41', '%20', '%7E', '.', '%3A443', '%3A0443', '0', '%EF%BC%8E', '%C3%A9', '%C2%AD', '%40', '%E3%80%82')), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));
    const did = fc.tuple(fc.constantFrom('web', 'key', 'pkh', 'example'), fc.array(segment, { minLength: 1, maxLength: 3 }), fc.constantFrom('a', 'Z', '9')).map(([method, segments, last]) => `did:${method}:${segments.join(':')}${last}`);
    fc.assert(
      fc.property(did, (text) => {
        const canonical = canonicalDid(text);
        expect(canonicalDid(canonical)).toBe(canonical);
        if (checkDid(text).syntax === 'valid' && !text.startsWith('did:key') && !text.startsWith('did:pkh')) expect(checkDid(canonical).syntax).toBe('valid');
      }),
      { numRuns: 500 },
    );
  });
});
