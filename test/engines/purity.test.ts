import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Engines are pure: no clock, no randomness, no timers, no process, no network or file system,
 * and no imports from the layers above them. This scans every engine and decider of every
 * operation (src/families/<family>/<operation>/engine.ts and decider.ts) and every family
 * file they import, and names the file and line of each violation.
 */

interface Violation {
  file: string;
  line: number;
  rule: string;
  text: string;
}

const FORBIDDEN_CODE: Array<[RegExp, string]> = [
  [/\bDate\b/, 'reads the clock (Date)'],
  [/\bMath\.random\b/, 'uses randomness (Math.random)'],
  [/\bperformance\b/, 'reads the clock (performance)'],
  [/(?<!['"])\bprocess\b(?!['"])/, 'reads the process (process)'],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\b/, 'uses a timer'],
  [/\bfetch\s*\(|\bXMLHttpRequest\b|\bWebSocket\b/, 'uses the network'],
  [/\b(randomBytes|randomUUID|getRandomValues|randomInt|randomFill|randomFillSync|generateKeyPair|generateKeyPairSync|randomPrivateKey|randomSecretKey)\b/, 'uses crypto randomness'],
];

const FORBIDDEN_MODULES = /^(node:)?(fs|fs\/promises|net|http|https|http2|child_process|dgram|dns|dns\/promises|tls|worker_threads|cluster)$/;
const FORBIDDEN_LAYERS = /(^|\/)(events|http|commands|payments|catalog)(\/|$)/;

const MODULE_SPECIFIERS = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /^\s*import\s+['"]([^'"]+)['"]/g];

/** Comment text is not code: a `// no Date here` must not count. String contents are kept. */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Resolves a relative import against the engine file, so `../../events/x.ts` is caught. */
function importedLayerPath(fromFile: string, specifier: string): string {
  if (!specifier.startsWith('.')) return '';
  const parts = fromFile.split('/').slice(0, -1);
  for (const piece of specifier.split('/')) {
    if (piece === '..') parts.pop();
    else if (piece !== '.') parts.push(piece);
  }
  return parts.join('/');
}

export function scanEngineSource(file: string, source: string): Violation[] {
  const violations: Violation[] = [];
  const lines = stripComments(source).split('\n');
  lines.forEach((text, index) => {
    const line = index + 1;
    for (const [pattern, rule] of FORBIDDEN_CODE) if (pattern.test(text)) violations.push({ file, line, rule, text: text.trim() });
    // A type-only import brings no code along: an engine may name the types of the layers it is handed.
    if (/^\s*import\s+type\b/.test(text)) return;
    for (const pattern of MODULE_SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const specifier = match[1]!;
        if (FORBIDDEN_MODULES.test(specifier)) violations.push({ file, line, rule: `imports ${specifier}`, text: text.trim() });
        const resolved = importedLayerPath(file, specifier);
        const srcRelative = resolved.replace(/^.*?\bsrc\//, '');
        if (resolved.includes('src/') && FORBIDDEN_LAYERS.test(srcRelative)) {
          violations.push({ file, line, rule: `imports the ${srcRelative.split('/')[0]} layer (${specifier})`, text: text.trim() });
        }
      }
    }
  });
  return violations;
}

const familiesRoot = fileURLToPath(new URL('../../src/families', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const PURE_ENTRY = /^(engine|decider)\.ts$|-engine\.ts$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The engines, deciders and event schemas of every operation, and the family files they import. */
function engineFiles(): string[] {
  const pending = sourceFiles(familiesRoot).filter((path) => PURE_ENTRY.test(path.split('/').at(-1)!));
  // Engines not yet moved into their operation's folder.
  const legacyRoot = fileURLToPath(new URL('../../src/engines', import.meta.url));
  if (existsSync(legacyRoot)) pending.push(...sourceFiles(legacyRoot));
  const seen = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    // `import type` brings no code along: the file it names is not part of the engine.
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^(?!import type\b)[^\n]*\bfrom\s+['"](\.[^'"]+)['"]/gm)) {
      const target = join(file, '..', specifier!);
      if (target.startsWith(familiesRoot) && /\.ts$/.test(target)) pending.push(target);
    }
  }
  return [...seen];
}

const format = (v: Violation) => `${v.file}:${v.line} ${v.rule}: ${v.text}`;

describe('engine purity', () => {
  it('finds no clock, randomness, timer, process, network, file system or upper-layer import in any engine', () => {
    const files = engineFiles();
    expect(files.length).toBeGreaterThan(0);
    const violations = files.flatMap((path) => scanEngineSource(relative(repoRoot, path).split('\\').join('/'), readFileSync(path, 'utf8')));
    expect(violations.map(format)).toEqual([]);
  });

  it('catches each kind of violation, naming file and line', () => {
    const fixture = [
      "import { readFileSync } from 'node:fs';",
      "import { request } from 'https';",
      "import { append } from '../../events/port.ts';",
      "import { catalog } from '../../catalog/index.ts';",
      "import { canonicalText } from '../../signing/canonical.ts';",
      'export function stamp() {',
      '  const now = Date.now();',
      '  const noise = Math.random();',
      '  const t = performance.now();',
      '  const env = process.env.X;',
      '  setTimeout(() => undefined, 1);',
      "  const page = fetch('https://example.org');",
      '  const id = crypto.randomUUID();',
      "  const cp = await import('node:child_process');",
      '  // Date in a comment is fine',
      "  return { now, noise, t, env, page, id, cp, readFileSync, request, catalog, label: 'update' };",
      '}',
    ].join('\n');
    const found = scanEngineSource('src/engines/trust/fixture.ts', fixture).map(format);
    const at = (line: number, rule: string) => expect(found.some((f) => f.startsWith(`src/engines/trust/fixture.ts:${line} `) && f.includes(rule)), `${line} ${rule}\n${found.join('\n')}`).toBe(true);
    at(1, 'imports node:fs');
    at(2, 'imports https');
    at(3, 'imports the events layer');
    at(4, 'imports the catalog layer');
    at(7, 'Date');
    at(8, 'Math.random');
    at(9, 'performance');
    at(10, 'process');
    at(11, 'timer');
    at(12, 'network');
    at(13, 'crypto randomness');
    at(14, 'imports node:child_process');
    expect(found.filter((f) => /fixture\.ts:(5|15|16|17) /.test(f))).toEqual([]);
  });
});
