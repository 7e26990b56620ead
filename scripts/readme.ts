/** `npm run readme`: rewrites the README's operations table from the catalogue. */
import { readFileSync, writeFileSync } from 'node:fs';
import { pricedOperations } from '../src/catalog/index.ts';
import { withOperationsTable } from '../src/catalog/discovery/operations-table.ts';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, withOperationsTable(readFileSync(path, 'utf8'), pricedOperations()));
