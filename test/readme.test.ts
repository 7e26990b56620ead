import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pricedOperations } from '../src/catalog/index.ts';
import { operationsTable, TABLE_END, TABLE_START } from '../src/catalog/discovery/operations-table.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('starts with the two commands a new user needs', () => {
    const firstBlock = readme.slice(0, readme.indexOf('```', readme.indexOf('```') + 3));
    expect(firstBlock).toContain('npm install && npm start');
    expect(firstBlock).toContain('npm test');
  });

  it('lists every priced operation exactly as the catalogue has it (run `npm run readme` after a change)', () => {
    const table = readme.slice(readme.indexOf(TABLE_START), readme.indexOf(TABLE_END) + TABLE_END.length);
    expect(table).toBe(operationsTable(pricedOperations()));
    expect(table.split('\n').filter((l) => l.startsWith('| ') && l.includes('`'))).toHaveLength(40);
  });

  it('stays short: about 250 lines, the rest in docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(280);
  });

  it('links only to files the repository contains', () => {
    const links = [...readme.matchAll(/\]\((?!https?:|#)([^)#]+)/g)].map((m) => m[1]!);
    const missing = links.filter((link) => !existsSync(new URL(`../${link}`, import.meta.url)));
    expect(missing).toEqual([]);
  });
});
