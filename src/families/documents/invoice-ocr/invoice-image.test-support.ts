import { createRequire } from 'node:module';
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
