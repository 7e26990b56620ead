import { createHash, createPublicKey, generateKeyPairSync, randomUUID, sign as cryptoSign, verify } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { PAYMENT_EVENT_TYPES } from '../../src/payments/saga/events.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { startResultLog } from '../../src/transparency/result-log.ts';
import { openCheckpoint, signCheckpoint, type NoteSigner } from '../../src/transparency/c2sp-checkpoint.ts';
import { MerkleLog } from '../../src/signing/merkle-log.ts';
import { startWitnessing, type Witnessing } from '../../src/transparency/tlog-witness.ts';
import { parseWitnessList, type Witness } from '../../src/transparency/witness-list.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startTestWitness, type TestWitness } from '../support/tlog-witness-server.ts';
import { pythonWithCryptography } from '../support/python-verifier.ts';
import { checkpointCovering, paidUptimeResult } from '../support/result-log-client.ts';

const run = promisify(execFile);

/** The witness's cosignature line in a note, checked here with node:crypto alone, as a client of the witness would. */
function witnessCosigns(note: string, witness: TestWitness): boolean {
  const body = note.slice(0, note.lastIndexOf('\n\n') + 1);
  const keyId = createHash('sha256').update(witness.name).update(Uint8Array.of(0x0a, 0x04)).update(witness.publicKey).digest().subarray(0, 4);
  const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), witness.publicKey]), format: 'der', type: 'spki' });
  return note.split('\n').some((line) => {
    if (!line.startsWith(`\u2014 ${witness.name} `)) return false;
    const payload = Buffer.from(line.split(' ')[2]!, 'base64');
    if (payload.length !== 76 || !payload.subarray(0, 4).equals(keyId)) return false;
    const time = payload.readBigUInt64BE(4);
    return verify(null, Buffer.from(`cosignature/v1\ntime ${time}\n${body}`), key, payload.subarray(12));
  });
}

describe('the witness list (LOG_WITNESSES)', () => {
  it('reads verifier keys and submission prefixes, and refuses a key of another type, a wrong key id or a URL that is no prefix', async () => {
    const witness = await startTestWitness({ logOrigin: () => 'x', logPublicKeyHex: () => '00'.repeat(32) });
    await witness.close();
    const parsed = parseWitnessList(` ${witness.vkey} https://w.example/sub/ ,${witness.vkey.replace('w1', 'w2').replace(/\+[0-9a-f]{8}\+/, `+${createHash('sha256').update('witness.test/w2').update(Uint8Array.of(0x0a, 0x04)).update(witness.publicKey).digest().subarray(0, 4).toString('hex')}+`)} http://127.0.0.1:9/w`);
    expect(parsed).toMatchObject({ witnesses: [{ name: 'witness.test/w1', submissionUrl: 'https://w.example/sub' }, { name: 'witness.test/w2', submissionUrl: 'http://127.0.0.1:9/w' }] });
    const [name, id, ...key] = witness.vkey.split('+');
    const noteKey = `${name}+${id}+${Buffer.concat([Uint8Array.of(0x01), Buffer.from(key.join('+'), 'base64').subarray(1)]).toString('base64')}`;
    for (const [list, reason] of [
      [`${noteKey} https://w.example`, /type is 0x01/],
      [`${witness.vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+')} https://w.example`, /key id 00000000/],
      [`${witness.vkey} https://w.example/?a=1`, /prefix/],
      [`${witness.vkey} ftp://w.example`, /http or https/],
      [`${witness.vkey}`, /separated by a space/],
      [`${witness.vkey} https://a.example, ${witness.vkey} https://b.example`, /named twice/],
    ] as const)
      expect(parseWitnessList(list), list).toMatchObject({ reason: expect.stringMatching(reason) });
    expect(() => loadSettings({ LOG_WITNESSES: `${witness.vkey} ftp://w.example` })).toThrow(/LOG_WITNESSES/);
  });
});

describe('a paid result\'s checkpoint, cosigned by a witness (C2SP tlog-witness)', () => {
  const pay = createPayingFetch();
  const paidResult = async (target: string) => (await paidUptimeResult(service.url, pay, target)).sha256;
  let service: TestService;
  let witness: TestWitness;
  let origin = '';
  let logKey = '';
  beforeAll(async () => {
    witness = await startTestWitness({ logOrigin: () => origin, logPublicKeyHex: () => logKey });
    service = await startTestService({ LOG_CHECKPOINT_INTERVAL_MS: '100', LOG_WITNESSES: `${witness.vkey} ${witness.url}` });
    const key = (await (await fetch(`${service.url}/v1/log/public-key`)).json()) as { publicKey: string; keyId: string };
    logKey = key.publicKey;
    origin = `attestation-service/result-log/${key.keyId}`;
  });
  afterAll(async () => {
    await service.stop();
    await witness.close();
  });


  const cosignedCheckpoint = (size: number) => checkpointCovering(service.url, size, `\u2014 ${witness.name} `);

  it('serves the checkpoint with the witness\'s cosignature, which verifies with the witness key, beside the log\'s own', async () => {
    const sha256 = await paidResult('https://a.example/mcp');
    const note = await cosignedCheckpoint(1);
    expect(witnessCosigns(note, witness)).toBe(true);
    expect(openCheckpoint(note, origin, logKey).valid).toBe(true); // the log's signatures still verify; the witness line is ignored by them
    const info = (await (await fetch(`${service.url}/v1/log`)).json()) as { witnesses: Array<{ name: string; cosigned_size: number | null; problem?: string }> };
    expect(info.witnesses).toEqual([{ name: witness.name, submission_url: witness.url, cosigned_size: Number(note.split('\n')[1]) }]);
    const bundle = (await (await fetch(`${service.url}/v1/log/result/${sha256}`)).json()) as { checkpoint: string };
    expect(witnessCosigns(bundle.checkpoint, witness)).toBe(true);

    // Offline, the command-line verifier requires the cosignature of each witness it is given.
    const dir = mkdtempSync(join(tmpdir(), 'witnessed-bundle-'));
    try {
      const file = join(dir, 'bundle.json');
      writeFileSync(file, JSON.stringify(bundle));
      const verifyCli = (...args: string[]) => run(process.execPath, ['verifiers/cli/verify.mjs', file, '--log-key', logKey, ...args]).then((r) => ({ code: 0, stdout: r.stdout }), (err: { code: number; stdout: string }) => err);
      const witnessed = await verifyCli('--witness', witness.vkey);
      expect(witnessed.code).toBe(0);
      expect(witnessed.stdout).toMatch(new RegExp(`ok   witness ${witness.name}: cosigned the checkpoint at`));
      const stranger = await startTestWitness({ name: 'witness.test/stranger', logOrigin: () => origin, logPublicKeyHex: () => logKey });
      await stranger.close();
      const unwitnessed = await verifyCli('--witness', witness.vkey, '--witness', stranger.vkey);
      expect(unwitnessed.code).toBe(1);
      expect(unwitnessed.stdout).toContain('FAIL witness witness.test/stranger: no cosignature of this witness on the checkpoint verifies with its key');
      expect(unwitnessed.stdout).toMatch(/INVALID\n$/);

      // The Python verifier, which shares no code with the service or the command line, agrees.
      const python = pythonWithCryptography();
      if (!python) console.log('Python witness check skipped: no python3 with the cryptography package (Debian: apt-get install python3-cryptography)');
      else {
        const verifyPython = (...args: string[]) => run(python, ['verifiers/python/verify_result.py', file, '--log-key', logKey, ...args]).then((r) => ({ code: 0, stdout: r.stdout }), (err: { code: number; stdout: string }) => err);
        const pyWitnessed = await verifyPython('--witness', witness.vkey);
        expect(pyWitnessed.code, pyWitnessed.stdout).toBe(0);
        expect(pyWitnessed.stdout).toContain(`ok   witness ${witness.name}: cosigned the checkpoint at`);
        const pyUnwitnessed = await verifyPython('--witness', stranger.vkey);
        expect(pyUnwitnessed.code).toBe(1);
        expect(pyUnwitnessed.stdout).toContain('FAIL witness witness.test/stranger');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes npm run monitor when it requires this witness, and fails it for a witness that never cosigned', { timeout: 60_000 }, async () => {
    await paidResult('https://monitored.example/mcp');
    const dir = mkdtempSync(join(tmpdir(), 'witnessed-monitor-'));
    try {
      const monitor = (vkey: string) =>
        run(process.execPath, ['verifiers/cli/monitor.mjs', service.url, '--log-key', logKey, '--state', join(dir, 'state.json'), '--witness', vkey]).then(
          (r) => ({ code: 0, stdout: r.stdout }),
          (err: { code: number; stdout: string }) => err,
        );
      const witnessed = await monitor(witness.vkey);
      expect(witnessed.code, witnessed.stdout).toBe(0);
      expect(witnessed.stdout).toContain(`ok   witness ${witness.name} cosigned it at`);
      const stranger = await startTestWitness({ name: 'witness.test/absent', logOrigin: () => origin, logPublicKeyHex: () => logKey });
      await stranger.close();
      const unwitnessed = await monitor(stranger.vkey);
      expect(unwitnessed.code).toBe(1);
      expect(unwitnessed.stdout).toContain('FAIL witness witness.test/absent: no cosignature on this checkpoint verifies with its key');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('brings the witness along from the tree it cosigned to the next with a consistency proof, which it checks', async () => {
    const before = witness.latest!.size;
    await paidResult('https://b.example/mcp');
    await paidResult('https://c.example/mcp');
    const note = await cosignedCheckpoint(before + 2);
    expect(witnessCosigns(note, witness)).toBe(true);
    const step = witness.requests.find((r) => r.old === before && r.status === 200);
    expect(step).toBeDefined();
    // A proof from a tree to a larger one has at least one hash; the witness checked it against the root it had cosigned.
    expect(step!.proofLines).toBeGreaterThan(0);
  });
});

describe('witnessing, against witnesses that disagree or misbehave', () => {
  const logKeys = generateKeyPairSync('ed25519');
  const logPublicKey = logKeys.publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  const origin = 'log.test/results';
  const signer: NoteSigner = { name: origin, publicKey: logPublicKey, sign: (message) => cryptoSign(null, message, logKeys.privateKey) };
  const tree = new MerkleLog();
  for (let i = 0; i < 40; i++) tree.append(Buffer.from(`leaf ${i}`));
  const checkpointOf = (size: number) => ({ tree_size: size, note: signCheckpoint(signer, origin, size, Buffer.from(tree.root(size)).toString('hex'), 1_800_000_000) });
  const errors: string[] = [];
  const log = { info: () => {}, warn: () => {}, error: (_o: object, message: string) => void errors.push(message) } as never;
  let witness: TestWitness;
  let witnessing: Witnessing;

  async function setUp(): Promise<void> {
    witness = await startTestWitness({ logOrigin: () => origin, logPublicKeyHex: () => logPublicKey.toString('hex') });
    const parsed = parseWitnessList(`${witness.vkey} ${witness.url}`) as { witnesses: Witness[] };
    witnessing = startWitnessing(parsed.witnesses, { consistencyProof: (a, b) => tree.consistencyProof(a, b), log, timeoutMs: 5_000 });
  }
  afterEach(async () => {
    witnessing.stop();
    await witness.close();
    errors.length = 0;
  });

  it('after a restart (old size 0) learns the size the witness holds from its 409, and proves consistency from there', async () => {
    await setUp();
    witness.latest = { size: 10, root: Buffer.from(tree.root(10)).toString('hex') };
    witnessing.submit(checkpointOf(30));
    await witnessing.settled();
    expect(witness.requests.map((r) => [r.old, r.status])).toEqual([[0, 409], [10, 200]]);
    expect(witnessing.status()).toEqual([{ name: witness.name, submission_url: witness.url, cosigned_size: 30 }]);
    expect(witnessCosigns(checkpointOf(30).note + witnessing.cosignatures(30).join(''), witness)).toBe(true);
    expect(witnessing.cosignatures(29)).toEqual([]);
  });

  it('raises the alarm when the witness cosigned a larger tree than the log holds (another history, or lost results), and serves no cosignature', async () => {
    await setUp();
    witness.latest = { size: 35, root: '00'.repeat(32) };
    witnessing.submit(checkpointOf(30));
    await witnessing.settled();
    expect(errors.join('\n')).toMatch(/larger tree of this log than the log holds/);
    expect(witnessing.status()[0]).toMatchObject({ cosigned_size: null, problem: expect.stringContaining('35 leaves, larger than') });
    expect(witnessing.cosignatures(30)).toEqual([]);
  });

  it('gives up on a witness that does not answer, or answers without end, and goes on with the next checkpoint', async () => {
    await setUp();
    witnessing.stop();
    const parsed = parseWitnessList(`${witness.vkey} ${witness.url}`) as { witnesses: Witness[] };
    witnessing = startWitnessing(parsed.witnesses, { consistencyProof: (a, b) => tree.consistencyProof(a, b), log, timeoutMs: 2_000 });
    witness.behaviour = 'silent';
    witnessing.submit(checkpointOf(12));
    await witnessing.settled();
    expect(witnessing.status()[0]!.problem).toMatch(/tree of 12 leaves not cosigned: .*(timeout|aborted)/i);
    witness.behaviour = 'endless';
    witnessing.submit(checkpointOf(13));
    await witnessing.settled();
    expect(witnessing.status()[0]!.problem).toMatch(/tree of 13 leaves not cosigned: answered more than 65536 bytes/);
    witness.behaviour = 'honest';
    witnessing.submit(checkpointOf(14));
    await witnessing.settled();
    expect(witnessing.status()[0]).toEqual({ name: witness.name, submission_url: witness.url, cosigned_size: 14 });
  });

  it('keeps no cosignature that does not verify with the witness key, and says so; a witness that is down is the same', async () => {
    await setUp();
    witness.behaviour = 'signs-with-another-key';
    witnessing.submit(checkpointOf(20));
    await witnessing.settled();
    expect(witnessing.cosignatures(20)).toEqual([]);
    expect(witnessing.status()[0]!.problem).toMatch(/without a cosignature that verifies/);
    witness.behaviour = 'down';
    witnessing.submit(checkpointOf(25));
    await witnessing.settled();
    expect(witnessing.status()[0]!.problem).toMatch(/tree of 25 leaves not cosigned: answered 503/);
    witness.behaviour = 'honest';
    witnessing.submit(checkpointOf(26));
    await witnessing.settled();
    expect(witnessing.status()[0]).toEqual({ name: witness.name, submission_url: witness.url, cosigned_size: 26 });
  });
});

describe('the result log after a restart', () => {
  it('asks the witnesses again for the checkpoint it finds, once its tree is folded, and serves their cosignatures', async () => {
    const keyring = createKeyring('tlog-witness-restart-secret-0123456789abcdef');
    const store = createMemoryEventStore();
    const quiet = { info: () => {}, warn: () => {}, error: () => {} } as never;
    let origin = '';
    const witness = await startTestWitness({ logOrigin: () => origin, logPublicKeyHex: () => keyring.publicKey('log').publicKeyHex });
    origin = `attestation-service/result-log/${keyring.publicKey('log').keyId}`;
    const witnesses = (parseWitnessList(`${witness.vkey} ${witness.url}`) as { witnesses: Witness[] }).witnesses;
    try {
      for (let i = 0; i < 5; i++) await store.appendToStream(`payment-${i}`, [{ id: randomUUID(), type: PAYMENT_EVENT_TYPES.signed, data: { keyFamily: 'attest', keyId: 'k1', sha256: createHash('sha256').update(`r${i}`).digest('hex') } }]);
      const first = await startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log: quiet, witnesses });
      while (first.size() < 5) await new Promise((r) => setTimeout(r, 10));
      await first.issueCheckpoint();
      await first.witnessesSettled();
      expect(first.witnessCosignatures(5)).toHaveLength(1);
      await first.stop();

      const second = await startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log: quiet, witnesses });
      while (second.size() < 5) await new Promise((r) => setTimeout(r, 10));
      await second.witnessesSettled();
      const note = second.latestCheckpoint()!.note + second.witnessCosignatures(5).join('');
      expect(witnessCosigns(note, witness)).toBe(true);
      // From 0 (all it knows after a start), told 5 by the witness's 409, then the same tree again.
      expect(witness.requests.slice(1).map((r) => [r.old, r.status])).toEqual([[0, 409], [5, 200]]);
      await second.stop();
    } finally {
      await witness.close();
    }
  });
});
