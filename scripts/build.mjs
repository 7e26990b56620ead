// Builds src/ into dist/ (tsc) when src/ has changed since the last build, so that `npm start`
// runs compiled JavaScript and compiles nothing at start, then bundles it (scripts/bundle.mjs)
// into the one file `npm start` loads. `--force` always builds.
// Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_DIRECTORY, bundleService } from './bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const stamp = join(dist, '.build-stamp');
const inputs = [src, join(root, 'tsconfig.json'), join(root, 'tsconfig.build.json'), join(root, 'package-lock.json'), join(root, 'scripts', 'build.mjs'), join(root, 'scripts', 'bundle.mjs')];
/** What `npm start` runs: the bundle, or the modules of dist/ where it could not be made. */
export const BUNDLED_ENTRY = join(dist, BUNDLE_DIRECTORY, 'main.js');

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
export async function build({ force = false } = {}) {
  if (!force && upToDate()) return 0;
  // The first of builds started together builds; the others find dist/ up to date after it.
  return underBuildLock(() => (!force && upToDate() ? 0 : compileAndBundle()));
}

const upToDate = () => existsSync(stamp) && statSync(stamp).mtimeMs >= newestInput();

async function compileAndBundle() {
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
  try {
    if (!(await bundleService(dist))) process.stderr.write('build: esbuild is not installed; npm start runs the modules of dist/ unbundled\n');
  } catch (err) {
    process.stderr.write(`build: bundling dist/ failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return 0;
}

const lock = join(root, '.build.lock');
/** Long enough for a build on a loaded machine (about 15 s alone); a holder gone for good is seen at once. */
const LOCK_WAIT_MS = 10 * 60_000;
/** A lock file still empty after this was left by a build that died between creating it and writing its pid. */
const EMPTY_LOCK_STALE_MS = 5_000;

/**
 * Runs `work` holding the build lock: two builds at once (two `npm start`, test files side by
 * side) would each remove and rewrite dist/ under the other. A lock whose process is gone is
 * taken over.
 */
async function underBuildLock(work) {
  const started = Date.now();
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      if (!lockHolderAlive()) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`build: another build (${lock}) has held the lock for ${LOCK_WAIT_MS / 60_000} minutes`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

function lockHolderAlive() {
  let text;
  try {
    text = readFileSync(lock, 'utf8');
  } catch {
    return true; // released meanwhile: the next attempt takes it
  }
  if (!text) return Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) < EMPTY_LOCK_STALE_MS;
  try {
    process.kill(Number(text), 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

// Run as a command (`npm run build`, `npm run audit`'s pre-step), not when start.mjs imports it.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await build({ force: process.argv.includes('--force') });
