import { FAMILIES, type PricedOperation } from '../../kernel/operation.ts';

export const TABLE_START = '<!-- operations table: generated from the catalogue by `npm run readme`; a test keeps it in step -->';
export const TABLE_END = '<!-- end of operations table -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** The README's table of every priced operation, family by family, in catalogue order. */
export function operationsTable(ops: readonly PricedOperation[]): string {
  const rows = ['| Family | Route | Price (USD) | What it does |', '|---|---|---|---|'];
  for (const family of Object.keys(FAMILIES) as Array<keyof typeof FAMILIES>) {
    for (const op of ops.filter((o) => o.family === family)) {
      const built = op.command ? '' : ' *(not built yet: answers 501, never quoted)*';
      rows.push(`| ${FAMILIES[family]} | \`${op.method} ${op.path}\` | ${op.priceUsd} | ${cell(op.summary)}${built} |`);
    }
  }
  return [TABLE_START, ...rows, TABLE_END].join('\n');
}

/** The README with its operations table replaced by the current one. */
export function withOperationsTable(readme: string, ops: readonly PricedOperation[]): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error('README.md has no operations table markers');
  return `${readme.slice(0, start)}${operationsTable(ops)}${readme.slice(end + TABLE_END.length)}`;
}
