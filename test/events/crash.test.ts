import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { auditEventLog } from '../../src/audit/audit.ts';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import type { RecordedEvent } from '../../src/events/port.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { recordingLogger } from './helpers.ts';
import { auditRules } from '../../src/catalog/index.ts';

const SECRET = 'crash-test-secret-0123456789abcdef0123456789';
const ROUNDS = 20;
const WRITER = join(import.meta.dirname, 'fixtures', 'crash-writer.ts');

interface Ack {
  stream: string;
  revision: string;
  ids: string[];
  position: string;
}

/** Runs the writer, lets it append for a random while, kills it with SIGKILL; returns its acks. */
async function runAndKill(dir: string): Promise<Ack[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir], {
    cwd: process.cwd(),
    env: { ...process.env, ATTESTATION_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acks: Ack[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  const ready = new Promise<void>((resolve, reject) => {
    // Only whole lines count: a line cut by the kill was never fully reported.
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') resolve();
      else if (line.startsWith('{')) acks.push(JSON.parse(line) as Ack);
    });
    void exited.then(() => reject(new Error(`writer exited before it was ready: ${stderr}`)));
  });
  await ready;
  await new Promise((r) => setTimeout(r, 30 + Math.random() * 250));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return acks;
}

describe('file event log under SIGKILL', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged event, in order, across ${ROUNDS} kills at random moments`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eventlog-crash-'));
    dirs.push(dir);
    const keyring = createKeyring(SECRET);
    const allAcks: Ack[] = [];
    let tornTails = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const acks = await runAndKill(dir);
      expect(acks.length, `round ${round}: the writer acknowledged nothing`).toBeGreaterThan(0);
      allAcks.push(...acks);

      const log = recordingLogger();
      const store = await openFileEventStore({ dir, log });
      try {
        tornTails += log.entries.filter((e) => e.level === 'warn' && e.message.includes('torn tail')).length;
        for (const a of acks) {
          const read = await store.readStream(a.stream, { fromRevision: BigInt(a.revision), maxCount: a.ids.length });
          expect(read.map((e) => e.id), `round ${round}: ${a.stream}@${a.revision}`).toEqual(a.ids);
          expect(read.at(-1)!.position).toBe(BigInt(a.position));
        }
        const all: RecordedEvent[] = [];
        for await (const e of store.readAll()) all.push(e);
        // Positions are dense and in order: nothing lost in the middle, nothing reordered.
        expect(all.every((e, i) => e.position === BigInt(i))).toBe(true);
        const report = await auditEventLog({ store, keyring, chainRules: auditRules });
        expect(report.failures).toEqual([]);
        expect(report.events).toBe(all.length);
        if (round === ROUNDS - 1) expect(report.results).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    }
    // Acks from earlier rounds must survive later rounds' recoveries too.
    const store = await openFileEventStore({ dir, log: recordingLogger() });
    try {
      for (const a of allAcks) {
        const read = await store.readStream(a.stream, { fromRevision: BigInt(a.revision), maxCount: a.ids.length });
        expect(read.map((e) => e.id)).toEqual(a.ids);
      }
    } finally {
      await store.close();
    }
    console.log(`crash test: ${allAcks.length} acknowledged appends over ${ROUNDS} kills, ${tornTails} torn tails truncated`);
  }, 120_000);
});
