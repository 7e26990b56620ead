import { describe, expect, it } from 'vitest';
import { htmlNestingDepth } from './html-depth.ts';

describe('the nesting of an HTML document, counted before the quote', () => {
  it('counts elements open inside each other as the parser keeps them', () => {
    expect(htmlNestingDepth('<html><body><div><span>a</span></div><div>b</div></body></html>').elements).toBe(4);
    // Void, self-closed and implied-end elements never stay open.
    expect(htmlNestingDepth('<p>one<p>two<br><img src="x"/><li>a<li>b<ix:header/>').elements).toBe(0);
    // Old filings leave <font> open: the parser keeps it open too.
    expect(htmlNestingDepth('<FONT size=2>a<FONT size=2>b').elements).toBe(2);
  });

  it('counts inline XBRL facts open inside each other apart: each holds the text of those inside it', () => {
    const block = '<ix:nonNumeric name="a"><table><tr><td><ix:nonFraction name="b">1</ix:nonFraction></td></tr></table></ix:nonNumeric>';
    expect(htmlNestingDepth(`<div>${block}${block}</div>`)).toEqual({ elements: 4, facts: 2 });
    const nested = '<ix:nonNumeric name="x">a'.repeat(9_000) + '</ix:nonNumeric>'.repeat(9_000);
    expect(htmlNestingDepth(nested)).toEqual({ elements: 9_000, facts: 9_000 });
  });

  it('reads a million characters of unterminated tags in one pass', () => {
    expect(htmlNestingDepth('<a '.repeat(333_333)).elements).toBe(0);
    expect(htmlNestingDepth('<div>'.repeat(200_000)).elements).toBe(200_000);
  });
});
