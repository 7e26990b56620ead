import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readKeyGenerations, rotateKeys } from './key-generations.ts';
import { SECRET_FILE_NAME } from './signing/keyring.ts';

const USAGE = `usage: npm run keys -- rotate [--at <unix seconds>] [--data-dir <dir>]
       npm run keys -- list [--data-dir <dir>]
rotate: adds a key generation (a new secret file, mode 0600) that signs from --at (default: now);
the service takes it at its next start, and keeps every earlier generation to verify old results.`;

function main(): number {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { at: { type: 'string' }, 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
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
    // Generation 0 is the service's first secret: its file here, or ATTESTATION_SECRET given to the service, which this command cannot see.
    if (!process.env['ATTESTATION_SECRET'] && !existsSync(join(dataDir, SECRET_FILE_NAME)))
      console.error(`keys: note: ${dataDir} holds no ${SECRET_FILE_NAME} and ATTESTATION_SECRET is not set here; generation 0 stays whatever secret the service is given (its ATTESTATION_SECRET), which results signed before the new generation keep needing`);
    return 0;
  } catch (err) {
    console.error(`keys: ${(err as Error).message}`);
    return 1;
  }
}

process.exit(main());
