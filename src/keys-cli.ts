import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readKeyGenerations, rotateKeys } from './key-generations.ts';

const USAGE = `usage: npm run keys -- rotate [--at <unix seconds>] [--data-dir <dir>]
       npm run keys -- list [--data-dir <dir>]
rotate: adds a key generation (a new secret file, mode 0600) that signs from --at (default: now);
the service takes it at its next start, and keeps every earlier generation to verify old results.`;

function main(): number {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { at: { type: 'string' }, 'data-dir': { type: 'string' } } });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const dataDir = parsed.values['data-dir'] ?? (process.env['DATA_DIR'] || './data');
  const [command] = parsed.positionals;
  if ((command === 'list' || command === 'rotate') && !existsSync(dataDir)) {
    console.error(`keys: there is no data directory at ${dataDir} (set DATA_DIR or --data-dir to the service's)`);
    return 2;
  }
  const now = Math.floor(Date.now() / 1000);
  if (command === 'list') {
    const { generations } = readKeyGenerations(dataDir);
    console.log(`generation 0: the attestation secret, valid from the beginning`);
    for (const g of generations) console.log(`generation ${g.generation}: ${g.secret_file}, valid from ${g.valid_from} (${new Date(g.valid_from * 1000).toISOString()})`);
    return 0;
  }
  if (command !== 'rotate') {
    console.error(USAGE);
    return 2;
  }
  const atText = parsed.values.at;
  if (atText !== undefined && !/^\d{1,12}$/.test(atText)) {
    console.error(`--at takes Unix seconds\n${USAGE}`);
    return 2;
  }
  try {
    const { generation, secretFile } = rotateKeys(dataDir, atText === undefined ? now : Number(atText), now);
    console.log(`key generation ${generation} added: ${secretFile} in ${dataDir}; restart the service to sign with it. Back up the new secret file with the others.`);
    return 0;
  } catch (err) {
    console.error(`keys: ${(err as Error).message}`);
    return 1;
  }
}

process.exit(main());
