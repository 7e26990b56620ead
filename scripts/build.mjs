// Builds src/ into dist/ (tsc) when src/ has changed since the last build, so that `npm start`
// runs compiled JavaScript and compiles nothing at start. `--force` always builds.
// Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const stamp = join(dist, '.build-stamp');
const inputs = [src, join(root, 'tsconfig.json'), join(root, 'tsconfig.build.json'), join(root, 'package-lock.json')];

function* files(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return yield { path, mtimeMs: stat.mtimeMs };
  for (const entry of readdirSync(path)) yield* files(join(path, entry));
}

function newestInput() {
  let newest = 0;
  for (const input of inputs) if (existsSync(input)) for (const f of files(input)) newest = Math.max(newest, f.mtimeMs);
  return newest;
}

/**
 * Builds dist/ when an input is newer than the last build (or always, with `force`); answers the
 * exit status: 0 when dist/ is ready to run.
 */
export function build({ force = false } = {}) {
  if (!force && existsSync(stamp) && statSync(stamp).mtimeMs >= newestInput()) return 0;

  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    if (existsSync(join(dist, 'main.js'))) {
      process.stderr.write('build: typescript is not installed (production install?); running the existing dist/\n');
      return 0;
    }
    process.stderr.write('build: typescript is not installed and dist/ is missing: run `npm install` (with dev dependencies) first\n');
    return 1;
  }

  process.stderr.write('build: compiling src/ into dist/ ...\n');
  rmSync(dist, { recursive: true, force: true });
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) return result.status ?? 1;
  // Data files shipped beside the code (curated data sets, static pages) go along unchanged.
  for (const { path } of files(src)) {
    if (path.endsWith('.ts')) continue;
    const target = join(dist, relative(src, path));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(path, target);
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return 0;
}

// Run as a command (`npm run build`, `npm run audit`'s pre-step), not when start.mjs imports it.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = build({ force: process.argv.includes('--force') });
