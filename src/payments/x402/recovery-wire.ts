/** How a batch of recoveries travels to the recovery thread and back: fixed-size records in one transferred buffer. */

/** A request: the 64-byte signature (r, s), the recovery id (one byte), the 32-byte digest. */
export const REQUEST_BYTES = 64 + 1 + 32;
/** An answer: the uncompressed public key (0x04, x, y). */
export const PUBLIC_KEY_BYTES = 65;
/** The answer to a request that does not recover: an uncompressed key never begins with 0. */
export const FAILED_RECOVERY = new Uint8Array(PUBLIC_KEY_BYTES);
