import { execFile } from 'node:child_process';
import { randomUUID, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { PAYMENT_EVENT_TYPES } from '../../src/payments/saga/events.ts';
import { checkpointCovering } from '../support/result-log-client.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startTestWitness } from '../support/tlog-witness-server.ts';
import { answerWithoutEnd } from '../support/endless-answer.ts';

/**
 * `npm run monitor`: a monitor that follows the result log over C2SP tlog-tiles alone (the
 * checkpoint and entry bundles), run as a user runs it, against a service whose log grows past
 * several bundles between two runs.
 */
const run = promisify(execFile);
const store = createMemoryEventStore();
let service: TestService;
let logKey = '';
const dir = mkdtempSync(join(tmpdir(), 'log-monitor-'));
beforeAll(async () => {
  service = await startTestService({ LOG_CHECKPOINT_INTERVAL_MS: '100' }, () => store);
  logKey = ((await (await fetch(`${service.url}/v1/log/public-key`)).json()) as { publicKey: string }).publicKey;
});
afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

let appended = 0;
/** Signed results straight into the event log, as paid calls append them (the log folds them alike). */
async function results(count: number): Promise<string[]> {
  const digests: string[] = [];
  for (let i = 0; i < count; i++, appended++) {
    const sha256 = createHash('sha256').update(`monitored ${appended}`).digest('hex');
    digests.push(sha256);
    await store.appendToStream(`payment-monitored-${appended}`, [{ id: randomUUID(), type: PAYMENT_EVENT_TYPES.signed, data: { keyFamily: appended % 3 ? 'attest' : 'uptime', keyId: 'k1', sha256 } }]);
  }
  await checkpointCovering(service.url, appended);
  return digests;
}

const monitor = (state: string, ...args: string[]) => monitorWith(['--log-key', logKey, '--state', state, ...args]);
const monitorWith = (args: string[]) =>
  run(process.execPath, ['verifiers/cli/monitor.mjs', service.url, ...args]).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout + err.stderr }),
  );

describe('npm run monitor', () => {
  it('reads the log from its first leaf, then only what was added, and finds each tree an extension of the last', async () => {
    const state = join(dir, 'state.json');
    const first = await results(300);
    const initial = await monitor(state);
    expect(initial.code, initial.stdout).toBe(0);
    expect(initial.stdout).toContain('ok   300 new results; the tree of 300 extends the 0 you saw before');
    expect(initial.stdout).toContain(`new  leaf 299: attest k1 ${first[299]}`);
    expect(JSON.parse(readFileSync(state, 'utf8'))).toMatchObject({ tree_size: 300 });

    const later = await results(250);
    const next = await monitor(state, '--family', 'uptime');
    expect(next.code, next.stdout).toBe(0);
    expect(next.stdout).toContain('ok   250 new results; the tree of 550 extends the 300 you saw before');
    // Only the family asked for is listed: leaf 300 is an uptime result, 301 an attest one.
    expect(next.stdout).toContain(`new  leaf 300: uptime k1 ${later[0]}`);
    expect(next.stdout).not.toContain(later[1]);
    expect(next.stdout).not.toContain(first[0]);
    expect(next.stdout).toMatch(/CONSISTENT\n$/);
  });

  it('fails a log whose tree does not extend the one the monitor saw, or that shows fewer results', async () => {
    const state = join(dir, 'forked.json');
    await results(5);
    expect((await monitor(state)).code).toBe(0);
    // The monitor's own record of the past, altered: as if the log had shown it another history.
    const saved = JSON.parse(readFileSync(state, 'utf8')) as { range: Array<{ hash: string }> };
    saved.range[0]!.hash = `${saved.range[0]!.hash.slice(0, -1)}${saved.range[0]!.hash.endsWith('0') ? '1' : '0'}`;
    writeFileSync(state, JSON.stringify(saved));
    await results(3);
    const forked = await monitor(state);
    expect(forked.code).toBe(1);
    expect(forked.stdout).toMatch(/FAIL the \d+ leaves give the root [0-9a-f]{64}, not the checkpoint's [0-9a-f]{64}: the new tree does not extend/);

    writeFileSync(state, JSON.stringify({ ...saved, tree_size: appended + 1000 }));
    const shrunk = await monitor(state);
    expect(shrunk.code).toBe(1);
    expect(shrunk.stdout).toContain('fewer than the');
  });

  it('fails a checkpoint under another log key, or without the cosignature of a witness it requires', async () => {
    const otherKey = await monitorWith(['--log-key', 'ab'.repeat(32), '--state', join(dir, 'other-key.json')]);
    expect(otherKey.code).toBe(1);
    expect(otherKey.stdout).toContain('FAIL checkpoint');
    const witness = await startTestWitness({ logOrigin: () => 'none', logPublicKeyHex: () => logKey });
    await witness.close();
    const unwitnessed = await monitor(join(dir, 'witnessed.json'), '--witness', witness.vkey);
    expect(unwitnessed.code).toBe(1);
    expect(unwitnessed.stdout).toContain(`FAIL witness ${witness.name}`);
  });

  it('says how to call it', async () => {
    for (const args of [[], ['--log-key', logKey], ['--log-key', logKey, '--log-key', logKey, '--state', join(dir, 'twice.json')]]) {
      const bad = await monitorWith(args);
      expect(bad, args.join(' ')).toMatchObject({ code: 2, stdout: expect.stringContaining('usage: npm run monitor --') });
    }
  });
});

describe('npm run monitor against a log that answers without end', () => {
  it('stops reading at what a checkpoint can hold, and says so', async () => {
    const endless = createServer((_req, res) => answerWithoutEnd(res));
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(endless.address() as { port: number }).port}`;
    try {
      const answer = await run(process.execPath, ['verifiers/cli/monitor.mjs', url, '--log-key', 'ab'.repeat(32), '--state', join(dir, 'endless.json')]).catch((err: { code: number; stderr: string }) => err);
      expect(answer).toMatchObject({ code: 2, stderr: expect.stringContaining('/v1/log/checkpoint answered more than 1048576 bytes') });
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });
});
