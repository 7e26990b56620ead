import { parentPort } from 'node:worker_threads';
import { nativeRecoverPublicKey } from './libsecp256k1.ts';
import { FAILED_RECOVERY, PUBLIC_KEY_BYTES, REQUEST_BYTES } from './recovery-wire.ts';

/**
 * The recovery thread: public keys for a batch of (signature, recovery id, digest) requests, in
 * order, with libsecp256k1. A request that does not recover answers FAILED_RECOVERY's zeros.
 */
const recoverPublicKey = nativeRecoverPublicKey();

parentPort!.on('message', (requests: ArrayBuffer) => {
  const count = requests.byteLength / REQUEST_BYTES;
  const answers = new Uint8Array(count * PUBLIC_KEY_BYTES);
  for (let i = 0; i < count; i++) {
    const at = i * REQUEST_BYTES;
    const signature = new Uint8Array(requests, at, 64);
    const recid = new Uint8Array(requests, at + 64, 1)[0]!;
    const digest = new Uint8Array(requests, at + 65, 32);
    try {
      answers.set(recoverPublicKey(signature, recid, digest), i * PUBLIC_KEY_BYTES);
    } catch {
      answers.set(FAILED_RECOVERY, i * PUBLIC_KEY_BYTES);
    }
  }
  parentPort!.postMessage(answers.buffer, [answers.buffer]);
});
