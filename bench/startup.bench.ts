import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_ENTRY } from './support/compiled.ts';
import { memoryOf } from './support/proc.ts';

/**
 * Start-up with an empty data directory: milliseconds from spawning the service until /health
 * answers, and its resident memory then. The bundle `npm start` runs (bench/run.ts builds it
 * first when stale), the modules of dist/ it is made from (what `npm start` ran before it was
 * bundled), and `npm start` itself (npm's own start-up and the build check included), three runs
 * each, medians.
 */
const root = new URL('..', import.meta.url).pathname;
const RUNS = 3;

async function startOnce(command: string, args: string[], port: number): Promise<{ ms: number; rssMb: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'attest-bench-start-'));
  const started = performance.now();
  const child = spawn(command, args, { cwd: root, env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' }, stdio: 'ignore', detached: true });
  try {
    for (;;) {
      if (performance.now() - started > 30_000) throw new Error(`${command} did not answer /health within 30 s`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const ms = performance.now() - started;
    // The node process serving the port: the child itself, or a descendant of npm (npm, sh, node).
    const pids = descendantsOf(child.pid!);
    return { ms, rssMb: Math.max(...pids.map((pid) => memoryOf(pid).rss)) };
  } finally {
    const processes = descendantsOf(child.pid!);
    process.kill(-child.pid!, 'SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    // npm may exit before the service it started has closed its files in the data directory.
    await exitOfAll(processes);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function exitOfAll(pids: number[]): Promise<void> {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = performance.now() + 30_000;
  while (pids.some(alive)) {
    if (performance.now() > deadline) throw new Error(`processes ${pids.filter(alive).join(', ')} did not exit within 30 s of SIGTERM`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function descendantsOf(pid: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
  return [pid, ...children.flatMap(descendantsOf)];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function main(): Promise<void> {
  for (const [label, command, args] of [
    [`node ${SERVICE_ENTRY}`, process.execPath, [SERVICE_ENTRY]],
    ['node dist/main.js', process.execPath, ['dist/main.js']],
    ['npm start', 'npm', ['start', '--silent']],
  ] as const) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await startOnce(command, [...args], 4700 + i));
    console.log(`${label.padEnd(26)} to /health: ${median(runs.map((r) => r.ms)).toFixed(0)} ms (runs ${runs.map((r) => r.ms.toFixed(0)).join(', ')}), RSS ${median(runs.map((r) => r.rssMb)).toFixed(0)} MB`);
  }
  console.log('targets: < 1,000 ms and < 120 MB with an empty data directory');
}
