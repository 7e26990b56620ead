import { readdirSync } from 'node:fs';
import { buildCompiled } from './support/compiled.ts';

/**
 * `npm run bench [-- name...]`: runs every bench/*.bench.ts (or those whose name contains one of
 * the arguments), one after another so they do not compete for the two cores.
 */
const filters = process.argv.slice(2);
const files = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((name) => f.includes(name)))
  .sort();

// The servers and the audit run compiled, as `npm start` and `npm run audit` do: dist/ is built
// here, once, when src/ changed, and never by a server inside its start-up window.
buildCompiled();

for (const file of files) {
  console.log(`\n=== ${file}`);
  const bench = (await import(new URL(file, import.meta.url).href)) as { default: () => Promise<void> };
  await bench.default();
}
