import { open } from 'node:fs/promises';

export type FileKind = 'png' | 'jpeg' | 'tiff' | 'pdf';

/** Images larger than this are refused before the quote: about 8000 x 5000, an A4 page at 600 dpi is 35 million. */
export const MAX_OCR_PIXELS = 40_000_000;
const HEADER_BYTES = 512 * 1024;

export type Sniffed = { kind: FileKind; width: number | null; height: number | null } | { kind: null; reason: string };

/** The file's kind by its first bytes (never by its name or declared type), and an image's size from its header. */
export async function sniffUpload(path: string): Promise<Sniffed> {
  const handle = await open(path, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const kind = kindOf(head);
  if (kind === null) return { kind: null, reason: 'not a PNG, JPEG, TIFF or PDF file (by its first bytes)' };
  if (kind === 'pdf') return { kind, width: null, height: null };
  try {
    // Loaded with the first image, not at every start of the service.
    const { imageSize } = await import('image-size');
    const size = imageSize(head);
    return { kind, width: size.width ?? null, height: size.height ?? null };
  } catch (err) {
    return { kind: null, reason: `the ${kind.toUpperCase()} header cannot be read: ${(err as Error).message}` };
  }
}

function kindOf(head: Buffer): FileKind | null {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  const tiff = head.subarray(0, 4).toString('hex');
  if (tiff === '49492a00' || tiff === '4d4d002a') return 'tiff';
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  return null;
}
