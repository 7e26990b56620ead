import { createRequire } from 'node:module';
import { crc32 } from 'node:zlib';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';

const requireHere = createRequire(import.meta.url);
GlobalFonts.registerFromPath(requireHere.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'), 'DejaVu Sans');

export const INVOICE_LINES = [
  'ACME Supplies Ltd',
  'Invoice No: INV-2026-0042',
  'Invoice date: 2026-03-04',
  'Widget A   2   10.00   20.00',
  'Subtotal: 20.00',
  'VAT 20%: 4.00',
  'Total due: EUR 24.00',
];

/** An invoice drawn at test time, black on white, in a font from a registry package. */
export function invoicePng(lines = INVOICE_LINES, width = 1000, height = 480): Buffer {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = 'black';
  ctx.font = '28px "DejaVu Sans"';
  lines.forEach((line, i) => ctx.fillText(line, 40, 60 + i * 58));
  return canvas.toBuffer('image/png');
}

/** The PNG with its first IDAT chunk's data replaced by `data`, its CRC made right again: well-formed chunks, broken image data. */
export function pngWithImageData(png: Buffer, data: Buffer): Buffer {
  const chunks: Buffer[] = [png.subarray(0, 8)];
  let replaced = false;
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8);
    const end = at + 12 + length;
    if (!replaced && type.toString('latin1') === 'IDAT') {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(data.length, 0);
      type.copy(head, 4);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(Buffer.concat([type, data])), 0);
      chunks.push(head, data, crc);
      replaced = true;
    } else chunks.push(png.subarray(at, end));
    at = end;
  }
  return Buffer.concat(chunks);
}
