import { createRequire } from 'node:module';
import { keccak_256 as nobleKeccak256 } from '@noble/hashes/sha3.js';
import type { IHasher } from 'hash-wasm';

/**
 * Keccak-256, the hash of Ethereum (the original Keccak padding, not FIPS 202's SHA3-256), where
 * a paid call spends it: three hashes of the EIP-712 digest and the address of the recovered key.
 * hash-wasm's WebAssembly build (in its package, nothing fetched) hashes these 64-224 bytes in
 * about a tenth of the time of @noble/hashes here (1 us against 6-13 us); @noble/hashes answers
 * where the WebAssembly instance cannot be made. The two give the same bytes (keccak256.test.ts).
 */
export type Keccak256 = (bytes: Uint8Array) => Uint8Array;

interface KeccakBuild {
  createKeccak(bits: 256): Promise<IHasher>;
}

async function wasmKeccak256(): Promise<Keccak256 | undefined> {
  let hasher: IHasher;
  try {
    // Keccak's build alone (11 KB, about 5 ms to load and instantiate): the package's index
    // carries every algorithm it has and took 40 ms or more to load at each start.
    const build = createRequire(import.meta.url)('hash-wasm/dist/keccak.umd.min.js') as KeccakBuild;
    hasher = await build.createKeccak(256);
  } catch {
    return undefined;
  }
  // One instance for the process: init, update and digest run without a pause in between, so
  // no two hashes can interleave on this thread.
  return (bytes) => hasher.init().update(bytes).digest('binary');
}

export { nobleKeccak256 };
export const keccak256: Keccak256 = (await wasmKeccak256()) ?? nobleKeccak256;
