import { readFileSync } from 'node:fs';

/** A process's resident memory in MB, and its two main parts, from /proc/<pid>/status (Linux). */
export function memoryOf(pid: number): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
  return { rss: mb('VmRSS'), anon: mb('RssAnon'), file: mb('RssFile') };
}

/** Bytes a process has caused to be written to storage so far (Linux /proc/<pid>/io). */
export function writtenBytesOf(pid: number): number {
  return Number(/write_bytes:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? Number.NaN);
}
