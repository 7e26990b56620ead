#!/usr/bin/env node
// Usage: npm run verify -- bundle.json [--signing-key <hex>] [--log-key <hex>] [--witness <vkey>]...
// Checks a result bundle offline and prints each step; exit code 0 only when every step passes.
import { readFileSync } from 'node:fs';
import { verifyBundle } from '../web/verify-core.js';

const USAGE =
  'usage: npm run verify -- bundle.json [--signing-key <hex>] [--log-key <hex>] [--witness <verifier key>]...\n' +
  '(a bundle is what GET /v1/log/result/{sha256} answers; - reads it from standard input;\n' +
  ' each --witness requires that witness\'s cosignature on the checkpoint, C2SP tlog-witness)';
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const option = (name) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [value] = args.splice(at, 2).slice(1);
  if (!/^[0-9a-f]{64}$/.test(value ?? '')) {
    console.error(`${name} takes a 32-byte public key in lowercase hex`);
    process.exit(2);
  }
  return value;
};
const witnesses = [];
for (let at = args.indexOf('--witness'); at >= 0; at = args.indexOf('--witness')) {
  const [vkey] = args.splice(at, 2).slice(1);
  if (!vkey) {
    console.error('--witness takes a verifier key <name>+<key id>+<base64 key>');
    process.exit(2);
  }
  witnesses.push(vkey);
}
const signingKey = option('--signing-key');
const logKey = option('--log-key');
const [file] = args;
if (!file) {
  console.error(USAGE);
  process.exit(2);
}
let bundle;
try {
  bundle = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
} catch (err) {
  console.error(`cannot read ${file}: ${err.message}`);
  process.exit(2);
}
const report = await verifyBundle(bundle, { ...(signingKey ? { signingKey } : {}), ...(logKey ? { logKey } : {}), witnesses });
for (const s of report.steps) console.log(`${s.ok ? 'ok  ' : 'FAIL'} ${s.name}: ${s.detail}`);
console.log(report.valid ? 'VALID' : 'INVALID');
process.exit(report.valid ? 0 : 1);
