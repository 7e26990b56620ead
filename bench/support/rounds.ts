import { readFileSync } from 'node:fs';
import { median } from './load.ts';

/**
 * These machines are shared: the speed of a core swings by half within seconds. A ratio taken
 * from two medians measured minutes apart mostly measures that swing. So the benchmarks measure
 * every side in short slices, side by side, round after round (the order rotated each round),
 * and report the median of the per-round ratios: a slow minute slows both sides of its round.
 */
export async function inRounds<R extends string>(roles: readonly R[], rounds: number, measure: (role: R, round: number) => Promise<number>): Promise<Record<R, number[]>> {
  const results = Object.fromEntries(roles.map((role) => [role, [] as number[]])) as Record<R, number[]>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < roles.length; i++) {
      const role = roles[(i + round) % roles.length]!;
      results[role].push(await measure(role, round));
    }
  }
  return results;
}

/** The ratio a[i] / b[i] of each round, and their median. */
export function roundRatios(a: readonly number[], b: readonly number[]): { ratios: number[]; median: number } {
  const ratios = a.map((value, i) => value / b[i]!);
  return { ratios, median: median(ratios) };
}

/**
 * CPU seconds (user + system, all threads) a process has used so far, from /proc on Linux;
 * undefined elsewhere. Per call, it is steadier than calls per second on a noisy machine.
 */
export function cpuSecondsOf(pid: number): number | undefined {
  return cpuSecondsIn(`/proc/${pid}/stat`);
}

/**
 * The same for the process's main thread alone (on Node.js, its event loop): what is left when
 * the other threads (a worker, the thread pool, V8's helpers for the collector and the compiler)
 * are taken away.
 */
export function mainThreadCpuSecondsOf(pid: number): number | undefined {
  return cpuSecondsIn(`/proc/${pid}/task/${pid}/stat`);
}

function cpuSecondsIn(statFile: string): number | undefined {
  try {
    const text = readFileSync(statFile, 'utf8');
    // The command name, in parentheses, may itself hold ") ": the fields start after the last one.
    const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

export const list = (values: readonly number[], digits = 0) => values.map((v) => v.toFixed(digits)).join(', ');
