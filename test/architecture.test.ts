import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import madge from 'madge';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/** The import graph of src/, as madge reads it (paths relative to src/). */
let graph: Record<string, string[]>;
let circles: string[][];

beforeAll(async () => {
  const result = await madge(new URL('../src/', import.meta.url).pathname, { fileExtensions: ['ts'], tsConfig: new URL('../tsconfig.json', import.meta.url).pathname });
  graph = result.obj();
  circles = result.circular();
}, 60_000);

const importsOf = (prefix: string) =>
  Object.entries(graph)
    .filter(([file]) => file.startsWith(prefix) && !file.endsWith('.test.ts'))
    .flatMap(([file, deps]) => deps.map((dep) => ({ file, dep })));

describe('the layout', () => {
  it('has no import circle', () => {
    expect(circles).toEqual([]);
  });

  it('imports point one way: nothing under payments/, kernel/ or families/ imports http/', () => {
    const offending = ['payments/', 'kernel/', 'families/'].flatMap((p) => importsOf(p)).filter(({ dep }) => dep.startsWith('http/'));
    expect(offending).toEqual([]);
  });

  it('kernel/ imports only itself, signing/, events/ and the settings', () => {
    const offending = importsOf('kernel/').filter(({ dep }) => !/^(kernel|signing|events)\//.test(dep) && dep !== 'config.ts');
    expect(offending).toEqual([]);
  });

  it('payments/ imports only itself, kernel/, signing/, events/ and the settings', () => {
    const offending = importsOf('payments/').filter(({ dep }) => !/^(payments|kernel|signing|events)\//.test(dep) && dep !== 'config.ts');
    expect(offending).toEqual([]);
  });

  it('catalog/ reaches operations only through the families\' indexes', () => {
    const offending = importsOf('catalog/').filter(({ dep }) => dep.startsWith('families/') && !/^families\/[^/]+\/index\.ts$/.test(dep));
    expect(offending).toEqual([]);
  });

  it('a family imports no other family', () => {
    const offending = importsOf('families/').filter(({ file, dep }) => dep.startsWith('families/') && dep.split('/')[1] !== file.split('/')[1]);
    expect(offending).toEqual([]);
  });

  it('families/ do not reach the service above them (catalog, http, audit, service)', () => {
    const offending = importsOf('families/').filter(({ dep }) => /^(catalog|http|audit)\//.test(dep) || dep === 'service.ts' || dep === 'main.ts');
    expect(offending).toEqual([]);
  });
});

/**
 * The packages a start of the service loads: the static imports reachable from src/main.ts
 * (`import type` is erased; `import()` is left for later). Read with the TypeScript parser.
 */
async function packagesLoadedAtStart(): Promise<Set<string>> {
  const ts = (await import('typescript')).default;
  const { readFileSync } = await import('node:fs');
  const { dirname, resolve } = await import('node:path');
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pending = [new URL('../src/main.ts', import.meta.url).pathname];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      const loaded =
        (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) || (ts.isExportDeclaration(statement) && !statement.isTypeOnly)
          ? statement.moduleSpecifier
          : undefined;
      if (!loaded || !ts.isStringLiteral(loaded)) continue;
      const specifier = loaded.text;
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else if (!specifier.startsWith('node:')) packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
    }
  }
  return packages;
}

describe('start-up', () => {
  it('loads no operation\'s heavy library: each loads on its operation\'s first call', async () => {
    const loaded = await packagesLoadedAtStart();
    expect(loaded.has('koa')).toBe(true); // the walk does reach the service's own dependencies
    const heavy = ['@modelcontextprotocol/sdk', 'libphonenumber-js', 'fast-xml-parser', 'htmlparser2', 'jsonrepair', 'papaparse', 'mdast-util-from-markdown', 'mdast-util-to-markdown', 'docx', 'fflate', 'pdfkit', 'pdf-lib', 'pdfjs-dist', 'tesseract.js', 'image-size', 'formidable', 'eslint', '@secretlint/core', 'viem', '@x402/extensions', '@x402/core', '@noble/curves', 'semver', '@renovatebot/pep440'];
    expect(heavy.filter((name) => loaded.has(name))).toEqual([]);
  });
});

/** Object literals in the TypeScript files under `dir` (tests aside) that begin with a spread and then name members: `{ ...a, b }`. */
function leadingSpreadLiterals(dir: string): string[] {
  const src = new URL('../src/', import.meta.url).pathname;
  const found: string[] = [];
  for (const entry of readdirSync(join(src, dir), { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
    const file = join(src, dir, entry);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isObjectLiteralExpression(node) && node.properties[0] && ts.isSpreadAssignment(node.properties[0]) && node.properties.some((p) => !ts.isSpreadAssignment(p)))
        found.push(`${relative(src, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('the paid path', () => {
  // On Node 20 (V8 11), `{ ...a, b: 1 }` clones `a`, and every member added to the clone (in the
  // same literal or later) takes a slow path: about 1 us a member, against 0.1 us for
  // Object.assign({}, a, { b: 1 }) or a literal that begins with a member. A paid call made
  // about ten such members (its command's context, the records of its events read back, an engine's
  // result, the stores lent to its command), a few per cent of its CPU.
  it('makes no object literal that begins with a spread and then adds members', () => {
    expect(['payments', 'events', 'http', 'mcp', 'kernel/engine-threads'].flatMap(leadingSpreadLiterals)).toEqual([]);
  });
});
