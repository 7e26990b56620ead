import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerWithoutEnd } from './endless-answer.ts';
import { openCheckpoint } from '../../src/transparency/c2sp-checkpoint.ts';
import { verifyConsistencyProof } from '../../src/signing/rfc6962-merkle.ts';

/**
 * A witness as C2SP tlog-witness describes one, for tests: it trusts one log (origin and key),
 * keeps the latest checkpoint it cosigned, and answers add-checkpoint with the specification's
 * status codes. `behaviour` makes it misbehave on purpose.
 */
export interface TestWitness {
  name: string;
  vkey: string;
  url: string;
  publicKey: Buffer;
  /** The latest tree it cosigned: size and root (hex). */
  latest: { size: number; root: string } | undefined;
  requests: Array<{ old: number; proofLines: number; status: number }>;
  behaviour: 'honest' | 'signs-with-another-key' | 'down' | 'silent' | 'endless';
  close(): Promise<void>;
}

export async function startTestWitness(options: { name?: string; logOrigin: () => string; logPublicKeyHex: () => Promise<string> | string }): Promise<TestWitness> {
  const name = options.name ?? 'witness.test/w1';
  const own = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519');
  const rawKey = (key: typeof own.publicKey) => key.export({ format: 'der', type: 'spki' }).subarray(12);
  const publicKey = rawKey(own.publicKey);
  const keyId = createHash('sha256').update(name).update(Uint8Array.of(0x0a, 0x04)).update(publicKey).digest().subarray(0, 4);
  const vkey = `${name}+${keyId.toString('hex')}+${Buffer.concat([Uint8Array.of(0x04), publicKey]).toString('base64')}`;

  const witness: TestWitness = {
    name,
    vkey,
    url: '',
    publicKey,
    latest: undefined,
    requests: [],
    behaviour: 'honest',
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  async function answer(body: string): Promise<{ status: number; type?: string; text: string }> {
    if (witness.behaviour === 'down') return { status: 503, text: 'down for maintenance\n' };
    const blank = body.indexOf('\n\n');
    const head = body.slice(0, blank).split('\n');
    const note = body.slice(blank + 2);
    const old = /^old (0|[1-9][0-9]*)$/.exec(head[0] ?? '');
    if (!old) return { status: 400, text: 'no old size line\n' };
    const oldSize = Number(old[1]);
    const proof = head.slice(1).map((line) => Buffer.from(line, 'base64').toString('hex'));
    const origin = note.split('\n')[0]!;
    if (origin !== options.logOrigin()) return { status: 404, text: 'unknown log\n' };
    const opened = openCheckpoint(note, origin, await options.logPublicKeyHex());
    if (!opened.valid) return { status: 403, text: `${opened.reason}\n` };
    const { treeSize, rootHash } = opened.checkpoint;
    if (oldSize > treeSize) return { status: 400, text: 'old size above the checkpoint size\n' };
    const mine = witness.latest?.size ?? 0;
    if (oldSize !== mine) return { status: 409, type: 'text/x.tlog.size', text: `${mine}\n` };
    if (oldSize === 0 && proof.length > 0) return { status: 422, text: 'a proof from size 0\n' };
    if (oldSize === treeSize && rootHash !== witness.latest!.root) return { status: 409, type: 'text/x.tlog.size', text: `${mine}\n` };
    if (oldSize > 0 && oldSize < treeSize && !verifyConsistencyProof(witness.latest!.root, rootHash, { firstSize: oldSize, secondSize: treeSize, path: proof })) return { status: 422, text: 'the consistency proof does not verify\n' };
    witness.latest = { size: treeSize, root: rootHash };
    const time = Math.floor(Date.now() / 1000);
    const message = Buffer.from(`cosignature/v1\ntime ${time}\n${note.slice(0, note.lastIndexOf('\n\n') + 1)}`, 'utf8');
    const signer = witness.behaviour === 'signs-with-another-key' ? other.privateKey : own.privateKey;
    const timeBytes = Buffer.alloc(8);
    timeBytes.writeBigUInt64BE(BigInt(time));
    return { status: 200, text: `\u2014 ${name} ${Buffer.concat([keyId, timeBytes, sign(null, message, signer)]).toString('base64')}\n` };
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/w/add-checkpoint') {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      if (witness.behaviour === 'silent') return; // never answers
      if (witness.behaviour === 'endless') return answerWithoutEnd(res);
      void answer(body).then(({ status, type, text }) => {
        const old = Number(/^old (\d+)/.exec(body)?.[1] ?? -1);
        witness.requests.push({ old, proofLines: body.slice(0, body.indexOf('\n\n')).split('\n').length - 1, status });
        res.writeHead(status, { 'content-type': type ?? 'text/plain; charset=utf-8' }).end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  witness.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w`;
  return witness;
}
