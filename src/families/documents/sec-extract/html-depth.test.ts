import { describe, expect, it } from 'vitest';
import { htmlNestingDepth } from './html-depth.ts';

describe('the nesting of an HTML document, counted before the quote', () => {
  it('counts elements open inside each other as the parser keeps them', () => {
    expect(htmlNestingDepth('<html><body><div><span>a</span></div><div>b</div></body></html>')).toBe(4);
    // Void, self-closed and implied-end elements never stay open.
    expect(htmlNestingDepth('<p>one<p>two<br><img src="x"/><li>a<li>b<ix:header/>')).toBe(0);
    // Old filings leave <font> open: the parser keeps it open too.
    expect(htmlNestingDepth('<FONT size=2>a<FONT size=2>b')).toBe(2);
  });

  it('reads a million characters of unterminated tags in one pass', () => {
    expect(htmlNestingDepth('<a '.repeat(333_333))).toBe(0);
    expect(htmlNestingDepth('<div>'.repeat(200_000))).toBe(200_000);
  });
});
