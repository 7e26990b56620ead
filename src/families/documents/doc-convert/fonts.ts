import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sha256Hex } from '../../../signing/hash.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';

/**
 * The fonts every PDF and DOCX is set in, read once at load from the registry package
 * dejavu-fonts-ttf (DejaVu fonts 2.37, wide Unicode coverage, free licence). Their SHA-256 goes
 * into the record's ruleset, so a reader knows exactly which glyphs drew the output.
 */
const require = createRequire(import.meta.url);
const fontPath = (file: string) => require.resolve(`dejavu-fonts-ttf/ttf/${file}`);

interface ShippedFont {
  file: string;
  bytes: Buffer;
  sha256: string;
}

function loadFont(file: string): ShippedFont {
  const bytes = readFileSync(fontPath(file));
  return { file, bytes, sha256: sha256Hex(bytes) };
}

export const FONTS = {
  body: loadFont('DejaVuSans.ttf'),
  bold: loadFont('DejaVuSans-Bold.ttf'),
  mono: loadFont('DejaVuSansMono.ttf'),
} as const;

/** DejaVu fonts 2.37 as shipped by dejavu-fonts-ttf 2.37.3; checked against the upstream release. */
export const FONT_VERSION = '2.37';
export const FONT_DATA_DATE = '2026-11-24';

export function fontRulesetData(): JsonObject[] {
  return Object.values(FONTS).map((font) => ({ name: font.file, version: FONT_VERSION, sha256: font.sha256, data_date: FONT_DATA_DATE }));
}
