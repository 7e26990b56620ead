import { createRequire } from 'node:module';

/** Recovers an uncompressed secp256k1 public key (0x04, x, y); throws when the signature does not recover. */
export type RecoverPublicKey = (signature64: Uint8Array, recid: number, digest: Uint8Array) => Uint8Array;

interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed?: boolean): Uint8Array;
}

/**
 * Public-key recovery by libsecp256k1, through the `secp256k1` package's prebuilt binary. Its
 * bindings entry throws when the binary does not fit this platform; the package's main entry
 * would silently fall back to `elliptic` instead, which we do not want.
 */
export function nativeRecoverPublicKey(): RecoverPublicKey {
  const native = createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSecp256k1;
  return (signature64, recid, digest) => native.ecdsaRecover(signature64, recid, digest, false);
}
