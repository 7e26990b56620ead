import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeIssue, issuesOf } from './issues.ts';

describe('issues of a schema, as a caller reads them', () => {
  it('dots the path to the member, array indexes included, and names the whole input (root)', () => {
    const schema = z.object({ items: z.array(z.object({ amount: z.string() })) }).strict();
    const nested = schema.safeParse({ items: [{ amount: '1' }, { amount: 2 }] });
    const root = schema.safeParse('not an object');
    expect(nested.success || root.success).toBe(false);
    expect(issuesOf(nested.error!)).toEqual([{ path: 'items.1.amount', message: expect.any(String) }]);
    expect(issuesOf(root.error!).map((i) => i.path)).toEqual(['(root)']);
  });

  it('quotes an issue in one line, path first', () => {
    expect(describeIssue({ path: 'items.1.amount', message: 'expected a string' })).toBe('items.1.amount: expected a string');
  });
});
