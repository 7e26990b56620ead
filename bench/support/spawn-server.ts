import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createInterface, type Interface } from 'node:readline';

export interface BenchServer {
  url: string;
  child: ChildProcess;
  /** The server's stdout, line by line, after its `listening` line. */
  lines: Interface;
  stop(): Promise<void>;
}

/**
 * "The server on one core, the load on the other" must be enforced, not hoped for: left to
 * itself, Linux wakes a process on the core of the process that woke it, so a server and its
 * load generator ping-ponging over loopback end up sharing one core for much of the time (both
 * well under one core busy, the machine a quarter idle). Where taskset exists, servers are
 * pinned to core 0 (all their threads: GC, thread pool) and the benchmark process to core 1.
 */
const SERVER_CORE = '0';
const LOAD_CORE = '1';
const canPin = (() => {
  if (process.platform !== 'linux' || availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const affinity = () => execFileSync('taskset', ['-p', '-c', String(process.pid)], { encoding: 'utf8' }).trim().split(/\s+/).at(-1)!;
const setAffinity = (cores: string) => execFileSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' });

/**
 * Runs a benchmark with this process (every thread) pinned to the load core, and says which way
 * it ran; the original affinity is restored afterwards.
 */
export async function onLoadCore(measure: () => Promise<void>): Promise<void> {
  if (!canPin) {
    console.log('cores not pinned (no taskset here): a server and the load generator may share a core');
    return measure();
  }
  const original = affinity();
  setAffinity(LOAD_CORE);
  console.log(`servers pinned to core ${SERVER_CORE} (every thread); load generator on core ${LOAD_CORE}`);
  try {
    await measure();
  } finally {
    setAffinity(original);
  }
}

/**
 * Runs a bare in-process loop on the servers' core, then moves back to the load core: a rate
 * compared with a server's is measured on the same core (the two cores of these machines do not
 * run at the same speed; core 0 also takes most interrupts). Call it while no server is loaded.
 */
export function onServerCore<T>(loop: () => T): T {
  if (!canPin) return loop();
  setAffinity(SERVER_CORE);
  try {
    return loop();
  } finally {
    setAffinity(LOAD_CORE);
  }
}

/** Starts a bench server script in its own process (on the server core) and waits for its URL line. */
export async function spawnServer(script: URL, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<BenchServer> {
  const command = [process.execPath, ...nodeArgs, '--import', 'tsx', script.pathname];
  const [file, ...args] = canPin ? ['taskset', '-c', SERVER_CORE, ...command] : command;
  const child = spawn(file!, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench server did not start in 20 s')), 20_000);
    lines.on('line', (line) => {
      const m = /^listening (\S+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    url,
    child,
    lines,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
