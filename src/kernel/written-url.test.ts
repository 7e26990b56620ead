import { describe, expect, it } from 'vitest';
import { isWrittenOutUrl } from './written-url.ts';

const https = ['https:'];

describe('isWrittenOutUrl', () => {
  it.each(['https://example.org', 'https://example.org/out/1?x=1#a', 'HTTPS://Example.org/', 'https://user@example.org:8443/p', 'https://[::1]/'])('takes %j', (text) => {
    expect(isWrittenOutUrl(text, https)).toBe(true);
  });

  it.each([
    ['a space in the host', 'https://a b'],
    ['no host, only an empty user', 'https://@'],
    ['a trailing newline', 'https://x\n'],
    ['a tab in the path', 'https://x/a\tb'],
    ['a zero-width space in the host', 'https://\u200bexample.org'],
    ['a control character', 'https://x/\u0007'],
    ['one slash', 'https:/x'],
    ['no slashes', 'https:x'],
    ['no host', 'https://'],
    ['a port out of range', 'https://x:99999/'],
    ['another scheme', 'http://example.org'],
    ['leading white space', ' https://example.org'],
  ])('refuses %s: %j', (_why, text) => {
    expect(isWrittenOutUrl(text, https)).toBe(false);
  });

  it('takes each protocol it is given', () => {
    expect(isWrittenOutUrl('http://example.org', ['http:', 'https:'])).toBe(true);
    expect(isWrittenOutUrl('ftp://example.org', ['http:', 'https:'])).toBe(false);
  });
});
