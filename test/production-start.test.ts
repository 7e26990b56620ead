import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openEventStore } from '../src/events/open-store.ts';
import { createKeyring } from '../src/signing/keyring.ts';
import { appendSaga, SECRET } from './audit/fixtures.ts';
import { silentLogger } from './events/helpers.ts';
import { createPayingFetch } from './support/paying-client.ts';

const root = new URL('..', import.meta.url).pathname;

interface CpuProfile {
  nodes: { callFrame: { url: string } }[];
}

describe('npm start runs the compiled service', () => {
  it('builds src/ into dist/ when stale, starts its bundle without compiling (in the one process npm start runs), and answers /health', async () => {
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    // Up to date now: a second run compiles nothing.
    const again = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
    expect(again.stderr).not.toContain('compiling');

    const dataDir = mkdtempSync(join(tmpdir(), 'attest-start-'));
    const started = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(started.scripts['start']).toBe('node scripts/start.mjs');
    // A CPU profile of the start says which code served: the bundle's, or the modules of dist/.
    const profiles = mkdtempSync(join(tmpdir(), 'attest-start-profile-'));
    const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profiles, 'scripts/start.mjs'], { cwd: root, env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' } });
    try {
      let seen = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const match = /Listening on (\S+) /.exec(seen);
          if (match) resolve(match[1]!.replace('localhost', '127.0.0.1'));
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${seen}`)));
      });
      expect(seen).not.toContain('compiling');
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(((await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string }).openapi).toBe('3.1.0');
      // A paid conversion runs on an engine thread, started from dist/ as well.
      const converted = await createPayingFetch()(`${url}/v1/utils/doc-convert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: '# Built\n\nFrom dist.', to: 'docx' }) });
      expect(converted.status).toBe(200);
      expect(((await converted.json()) as { utility_result: { output_media_type: string } }).utility_result.output_media_type).toContain('wordprocessingml');
    } finally {
      // The service finishes what it was writing before it exits; the directory goes after.
      const exited = child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
    // The main thread ran the bundle (scripts/bundle.mjs) and none of the HTTP modules of dist/;
    // the engine thread that made the DOCX ran the modules of dist/, as it should.
    const scripts = readdirSync(profiles).map((name) => new Set((JSON.parse(readFileSync(join(profiles, name), 'utf8')) as CpuProfile).nodes.map((n) => n.callFrame.url)));
    rmSync(profiles, { recursive: true, force: true });
    const ran = scripts.flatMap((urls) => [...urls]);
    expect(ran).toContain(pathToFileURL(join(root, 'dist', 'bundle', 'main.js')).href);
    expect(ran.filter((url) => url.includes('/dist/http/'))).toEqual([]);
  }, 120_000);

  it('npm run audit runs the compiled CLI, its verifying and index-checking threads from dist/ too', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'attest-audit-'));
    try {
      const store = await openEventStore({ DATA_DIR: dataDir }, silentLogger);
      const keyring = createKeyring(SECRET);
      for (let i = 0; i < 3; i++) await appendSaga(store, keyring, { i });
      await store.close();
      const { EVENTSTORE_URL: _ignored, ...env } = process.env;
      const audit = spawnSync('npm', ['run', '--silent', 'audit', '--', '--data-dir', dataDir, '--threads', '2'], { cwd: root, env: { ...env, ATTESTATION_SECRET: SECRET }, encoding: 'utf8', timeout: 60_000 });
      expect(audit.stderr).not.toContain('compiling');
      expect(audit.stdout).toContain('signed results:      3');
      expect(audit.stdout).toContain('event index:         9 entries checked against the segments');
      expect(audit.stdout).toContain('result: PASS');
      expect(audit.status).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
