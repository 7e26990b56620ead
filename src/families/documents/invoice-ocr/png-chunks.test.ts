import { describe, expect, it } from 'vitest';
import { invoicePng, pngWithImageData } from './invoice-image.test-support.ts';
import { pngChunkProblem } from './png-chunks.ts';

describe('a PNG upload checked whole before the quote', () => {
  const png = invoicePng();

  it('passes a whole file, trailing bytes after IEND included', () => {
    expect(pngChunkProblem(png)).toBeUndefined();
    expect(pngChunkProblem(Buffer.concat([png, Buffer.from('trailing')]))).toBeUndefined();
  });

  it('finds a truncated file, wherever it is cut', () => {
    for (const cut of [20, 40, png.length - 30, png.length - 6]) expect(pngChunkProblem(png.subarray(0, cut))).toMatch(/truncated/);
  });

  it('finds a damaged byte by its chunk CRC', () => {
    const damaged = Buffer.from(png);
    damaged[png.length >> 1] = damaged[png.length >> 1]! ^ 0x40;
    expect(pngChunkProblem(damaged)).toMatch(/CRC of its IDAT chunk .* does not match/);
  });

  it('passes well-formed chunks whose image data is not a valid stream: that only the decoder finds', () => {
    expect(pngChunkProblem(pngWithImageData(png, Buffer.alloc(64, 0xab)))).toBeUndefined();
  });
});
