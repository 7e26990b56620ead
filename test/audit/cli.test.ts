import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open as openLmdb } from 'lmdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventLogDirectory, openEventStore } from '../../src/events/open-store.ts';
import type { JsonObject } from '../../src/signing/rfc8785.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { silentLogger } from '../events/helpers.ts';
import { startResultLog } from '../../src/transparency/result-log.ts';
import { crc32 } from 'node:zlib';
import { appendSaga, SECRET } from './fixtures.ts';

const keyring = createKeyring(SECRET);
let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'audit-cli-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function runAudit(secret: string | null = SECRET, args: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const { EVENTSTORE_URL: _ignored, ATTESTATION_SECRET: _unset, ...env } = process.env;
  const result = spawnSync(process.execPath, ['--import', 'tsx', join('src', 'audit', 'cli.ts'), '--data-dir', dataDir, ...args], {
    cwd: process.cwd(),
    env: { ...env, ...(secret ? { ATTESTATION_SECRET: secret } : {}) },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function writeLog(tamperThird: boolean): Promise<void> {
  const store = await openEventStore({ DATA_DIR: dataDir }, silentLogger);
  for (let i = 0; i < 4; i++) {
    await appendSaga(store, keyring, { i }, tamperThird && i === 2 ? (d) => ((d.record as JsonObject).i = 99) : undefined);
  }
  await store.close();
}

describe('npm run audit', () => {
  it('passes a sound log with exit code 0 and a summary', async () => {
    await writeLog(false);
    const { status, stdout } = runAudit();
    expect(stdout).toContain('events replayed:     12');
    expect(stdout).toContain('signed results:      4');
    expect(stdout).toContain('result: PASS');
    expect(status).toBe(0);
  });

  it('fails with exit code 1 and the failures by kind when a result was tampered with', async () => {
    await writeLog(true);
    const { status, stdout } = runAudit();
    expect(stdout).toContain('result: FAIL, 2 failure(s)');
    expect(stdout).toContain('result-sha256: 1');
    expect(stdout).toContain('result-signature: 1');
    expect(stdout).toMatch(/\[result-sha256\] payment-0x[0-9a-f]+-0x[0-9a-f]+, revision 2/);
    expect(status).toBe(1);
  });

  it('never writes a secret into the directory it audits: without one it stops with exit code 2 and says why', async () => {
    await writeLog(false);
    const { status, stderr } = runAudit(null);
    expect(status).toBe(2);
    expect(stderr).toContain('no usable secret');
    expect(existsSync(join(dataDir, 'attestation-secret'))).toBe(false);
  });

  it('says there is no data directory when there is none, and does not make one', async () => {
    const absent = join(dataDir, 'no-such-directory');
    const { status, stderr } = runAudit(null, ['--data-dir', absent]);
    expect(status).toBe(2);
    expect(stderr).toContain(`there is no data directory at ${absent}`);
    expect(existsSync(absent)).toBe(false);
  });

  it('audits with public keys only: a saved key history, no secret, signatures verified on worker threads', async () => {
    const history = { keys: keyring.history().map((k) => ({ family: k.family, generation: k.generation, algorithm: 'Ed25519', public_key: k.publicKeyHex, key_id: k.keyId, valid_from: k.validFrom, valid_until: k.validUntil })), rotations: [] };
    const keysFile = join(dataDir, '..', `${dataDir.split('/').pop()}-keys.json`);
    await writeFile(keysFile, JSON.stringify(history));
    try {
      await writeLog(false);
      const sound = runAudit(null, ['--keys', keysFile, '--threads', '2']);
      expect(sound.stdout).toContain(`keys:                public keys of ${keysFile}`);
      expect(sound.stdout).toContain('verifying threads:   2');
      expect(sound.stdout).toContain("Ed25519 verified by: libsodium, each refusal asked of node:crypto again (node:crypto's verdicts)");
      expect(sound.stdout).toContain('result: PASS');
      expect(existsSync(join(dataDir, 'attestation-secret'))).toBe(false);

      await rm(dataDir, { recursive: true, force: true });
      await writeLog(true);
      const tampered = runAudit(null, ['--keys', keysFile]);
      expect(tampered.stdout).toContain('result-signature: 1');
      expect(tampered.status).toBe(1);

      const forged = { keys: history.keys.map((k, i) => (i === 0 ? { ...k, public_key: 'ab'.repeat(32) } : k)) };
      await writeFile(keysFile, JSON.stringify(forged));
      const refused = runAudit(null, ['--keys', keysFile]);
      expect(refused.stderr).toMatch(/is not the id of its public key/);
      expect(refused.status).toBe(2);
    } finally {
      await rm(keysFile, { force: true });
    }
  });

  it("checks the result log's store against the results, and fails with exit code 1 on a store that disagrees", async () => {
    await writeLog(false);
    const store = await openEventStore({ DATA_DIR: dataDir }, silentLogger);
    const log = await startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log: silentLogger as never, leafStore: join(dataDir, 'result-log', 'store') });
    expect(await log.caughtUpTo(11n, 5_000)).toBe(true); // the 12 events of the four sagas
    await log.stop();
    await store.close();
    const sound = runAudit();
    expect(sound.stdout).toContain('result log store:    4 leaves and their nodes checked against the results');
    expect(sound.status).toBe(0);

    // Leaf 2 says it is at another position, with its checksum made good.
    const file = join(dataDir, 'result-log', 'store', 'leaves');
    const records = await readFile(file);
    records.writeBigUInt64BE(records.readBigUInt64BE(2 * 48 + 32) + 1n, 2 * 48 + 32);
    records.writeUInt32LE(crc32(records.subarray(2 * 48, 2 * 48 + 44)), 2 * 48 + 44);
    await writeFile(file, records);
    const tampered = runAudit();
    expect(tampered.stdout).toContain('result-store: 1');
    expect(tampered.stdout).toMatch(/leaf 2 of the result log's store is .*the log gives/);
    expect(tampered.status).toBe(1);
  });

  it('checks the index on disk against the segments, and fails with exit code 1 on an index that disagrees', async () => {
    await writeLog(false);
    const sound = runAudit();
    expect(sound.stdout).toContain('event index:         12 entries checked against the segments');
    expect(sound.status).toBe(0);

    // Event 5's location and the position of its stream revision, changed behind the log's back.
    const env = openLmdb({ path: join(eventLogDirectory(dataDir), 'index'), maxDbs: 4, compression: false });
    const locations = env.openDB<Buffer, number>({ name: 'locations', keyEncoding: 'uint32', encoding: 'binary' });
    const streams = env.openDB<number[], Buffer>({ name: 'streams', keyEncoding: 'binary' });
    const moved = Buffer.from(locations.get(5)!);
    moved.writeDoubleLE(moved.readDoubleLE(4) + 1, 4);
    await locations.put(5, moved);
    const [entry] = [...streams.getRange({ limit: 1 })];
    await streams.put(entry!.key, entry!.value.map((position) => position + 1));
    await env.close();

    const tampered = runAudit();
    expect(tampered.stdout).toContain('result: FAIL');
    expect(tampered.stdout).toMatch(/event-index: [2-9]/);
    expect(tampered.stdout).toMatch(/\[event-index\] the index on disk, position 5: the index places event [0-9a-f-]+ at segment 0 offset \d+; the log has/);
    expect(tampered.status).toBe(1);
  });

  it('stops with exit code 2, naming file and offset, on a corrupt log', async () => {
    await writeLog(false);
    const dir = eventLogDirectory(dataDir);
    const segment = (await readdir(dir)).find((n) => n.endsWith('.segment'))!;
    const bytes = await readFile(join(dir, segment));
    bytes[200]! ^= 0x10;
    await writeFile(join(dir, segment), bytes);
    const { status, stderr } = runAudit();
    expect(stderr).toMatch(new RegExp(`audit could not run: event log is corrupt in ${segment} at byte offset \\d+`));
    expect(status).toBe(2);
  });
});
