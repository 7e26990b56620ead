#!/usr/bin/env node
// Usage: npm run monitor -- <service URL> --log-key <hex> --state <file> [--witness <vkey>]... [--family <name>]
// Follows the result log of a service over C2SP tlog-tiles: checks its latest checkpoint with the
// log key you pinned (and the witnesses you name), reads only the leaves added since the tree
// you saw last, and checks that the new tree extends that one leaf for leaf: a log that dropped,
// changed or reordered a result it had shown you cannot pass. Prints each new result; keeps what
// it saw in --state. Exit code 0 when the log is consistent, 1 when it is not, 2 on bad usage or
// an unreachable service. Needs Node >= 20 and nothing else; it shares no code with the service.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fromHex, openCheckpoint, openWitnessKey, sha256, toHex, witnessCosignedAt } from '../web/verify-core.js';

const USAGE =
  'usage: npm run monitor -- <service URL> --log-key <hex> --state <file> [--witness <verifier key>]... [--family <key family>]\n' +
  '(the log key: GET /v1/log/public-key, pinned once; the state file is created on the first run)';
const TILE_WIDTH = 256;

function parseArgs(argv) {
  const args = [...argv];
  if (args.includes('--help') || args.includes('-h')) return { help: true };
  const take = (name) => {
    const values = [];
    for (let at = args.indexOf(name); at >= 0; at = args.indexOf(name)) values.push(args.splice(at, 2)[1]);
    return values;
  };
  const logKeys = take('--log-key');
  const states = take('--state');
  const witnesses = take('--witness');
  const families = take('--family');
  const [url, ...rest] = args;
  if ([logKeys, states, families].some((values) => values.length > 1)) return { error: `--log-key, --state and --family are given once\n${USAGE}` };
  const [logKey] = logKeys;
  const [state] = states;
  const [family] = families;
  if (!url || rest.length > 0 || !state || !/^[0-9a-f]{64}$/.test(logKey ?? '') || witnesses.some((w) => !w)) return { error: USAGE };
  return { url: url.replace(/\/+$/, ''), logKey, state, witnesses, family };
}

// RFC 6962 hashing; a compact range is the right edge of the tree: the roots of its perfect
// subtrees, largest first, from which the root and the next leaves' parents follow.
const concat = (...parts) => Buffer.concat(parts.map((p) => Buffer.from(p)));
const leafHash = (entry) => sha256(concat(Uint8Array.of(0), entry));
const nodeHash = async (left, right) => sha256(concat(Uint8Array.of(1), left, right));

async function appendToRange(range, hash) {
  let node = hash;
  let size = 1;
  while (range.length > 0 && range[range.length - 1].size === size) {
    node = await nodeHash(range.pop().hash, node);
    size *= 2;
  }
  range.push({ size, hash: node });
}

async function rootOfRange(range) {
  if (range.length === 0) return toHex(await sha256(new Uint8Array()));
  let root = range[range.length - 1].hash;
  for (let i = range.length - 2; i >= 0; i--) root = await nodeHash(range[i].hash, root);
  return toHex(root);
}

function tilePath(index, width) {
  const digits = String(index).padStart(3, '0');
  const groups = [];
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end).padStart(3, '0'));
  return `tile/entries/${groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/')}${width === TILE_WIDTH ? '' : `.p/${width}`}`;
}

function entriesOf(bundle) {
  const entries = [];
  for (let at = 0; at < bundle.length; ) {
    const length = bundle.readUInt16BE(at);
    entries.push(bundle.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}

/** The most a checkpoint or an entry bundle can hold (256 entries of at most 65,535 bytes each, with their lengths): a log that sends more is not read further. */
const MAX_ANSWER_BYTES = { text: 1024 * 1024, bytes: TILE_WIDTH * (2 + 0xffff) };

async function fetchOk(url, as) {
  const res = await fetch(url, { headers: { 'accept-encoding': 'gzip, identity' } });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const limit = MAX_ANSWER_BYTES[as === 'text' ? 'text' : 'bytes'];
  const chunks = [];
  let length = 0;
  for await (const chunk of res.body ?? []) {
    length += chunk.length;
    if (length > limit) break; // leaving the loop cancels the rest
    chunks.push(chunk);
  }
  if (length > limit) throw new Error(`${url} answered more than ${limit} bytes, more than it can hold`);
  const body = Buffer.concat(chunks);
  return as === 'text' ? body.toString('utf8') : body;
}

/** The leaves `from` .. `to`-1, read from the entry bundles that hold them. */
async function* entriesBetween(prefix, from, to) {
  for (let index = Math.floor(from / TILE_WIDTH); index * TILE_WIDTH < to; index++) {
    const width = Math.min(TILE_WIDTH, to - index * TILE_WIDTH);
    const entries = entriesOf(await fetchOk(`${prefix}/${tilePath(index, width)}`));
    if (entries.length !== width) throw new Error(`the bundle ${tilePath(index, width)} holds ${entries.length} entries, not ${width}`);
    for (let i = Math.max(0, from - index * TILE_WIDTH); i < width; i++) yield { index: index * TILE_WIDTH + i, entry: entries[i] };
  }
}

function readState(file) {
  try {
    const state = JSON.parse(readFileSync(file, 'utf8'));
    return { ...state, range: state.range.map((r) => ({ size: r.size, hash: fromHex(r.hash) })) };
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw new Error(`cannot read the state file ${file}: ${err.message}`);
  }
}

function writeState(file, state) {
  const text = JSON.stringify({ ...state, range: state.range.map((r) => ({ size: r.size, hash: toHex(r.hash) })) }, null, 2);
  writeFileSync(`${file}.tmp`, `${text}\n`);
  renameSync(`${file}.tmp`, file);
}

/** Each witness's cosignature time on the note, or undefined for one whose cosignature is missing or does not verify. */
async function cosignaturesOn(note, witnesses) {
  return Promise.all(witnesses.map(async (witness) => ({ witness, at: await witnessCosignedAt(note, witness) })));
}

/**
 * The latest checkpoint, with the cosignatures of the witnesses required: a checkpoint just
 * issued waits a moment for them (the service submits it to its witnesses as it signs it), so
 * the checkpoint is fetched again a few times before a missing cosignature counts.
 */
async function witnessedCheckpoint(prefix, witnesses) {
  for (let attempt = 1; ; attempt++) {
    const note = await fetchOk(`${prefix}/checkpoint`, 'text');
    const cosignatures = await cosignaturesOn(note, witnesses);
    if (attempt >= WITNESS_ATTEMPTS || cosignatures.every((c) => c.at !== undefined)) return { note, cosignatures };
    await new Promise((resolve) => setTimeout(resolve, WITNESS_RETRY_MS));
  }
}
const WITNESS_ATTEMPTS = 5;
const WITNESS_RETRY_MS = 1_000;

async function monitor(options) {
  const prefix = `${options.url}/v1/log`;
  const witnesses = await Promise.all(options.witnesses.map(openWitnessKey));
  const { note, cosignatures } = await witnessedCheckpoint(prefix, witnesses);
  let checkpoint;
  try {
    checkpoint = await openCheckpoint(note, fromHex(options.logKey));
  } catch (err) {
    console.log(`FAIL checkpoint: ${err.message}`);
    return false;
  }
  console.log(`checkpoint of ${checkpoint.origin}: ${checkpoint.treeSize} results, issued at ${new Date(checkpoint.issuedAt * 1000).toISOString()}, signed by the log key you pinned`);
  for (const { witness, at } of cosignatures)
    console.log(at === undefined ? `FAIL witness ${witness.name}: no cosignature on this checkpoint verifies with its key` : `ok   witness ${witness.name} cosigned it at ${new Date(at * 1000).toISOString()}`);
  if (cosignatures.some((c) => c.at === undefined)) return false;

  const seen = readState(options.state) ?? { origin: checkpoint.origin, tree_size: 0, root_hash: toHex(await sha256(new Uint8Array())), range: [] };
  if (seen.origin !== checkpoint.origin) throw new Error(`the state file follows ${seen.origin}, not ${checkpoint.origin}`);
  if (checkpoint.treeSize < seen.tree_size) {
    console.log(`FAIL the log shows ${checkpoint.treeSize} results, fewer than the ${seen.tree_size} it showed you before: it dropped results`);
    return false;
  }
  const range = seen.range;
  let added = 0;
  for await (const { index, entry } of entriesBetween(prefix, seen.tree_size, checkpoint.treeSize)) {
    await appendToRange(range, await leafHash(entry));
    const leaf = JSON.parse(Buffer.from(entry).toString('utf8'));
    if (!options.family || leaf.key_family === options.family) console.log(`new  leaf ${index}: ${leaf.key_family} ${leaf.key_id} ${leaf.sha256}`);
    added++;
  }
  const root = await rootOfRange(range);
  if (root !== checkpoint.rootHash) {
    console.log(`FAIL the ${checkpoint.treeSize} leaves give the root ${root}, not the checkpoint's ${checkpoint.rootHash}: the new tree does not extend the ${seen.tree_size} results you saw before`);
    return false;
  }
  console.log(`ok   ${added} new results; the tree of ${checkpoint.treeSize} extends the ${seen.tree_size} you saw before, leaf for leaf`);
  writeState(options.state, { origin: checkpoint.origin, tree_size: checkpoint.treeSize, root_hash: root, range });
  return true;
}

const options = parseArgs(process.argv.slice(2));
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
if (options.error) {
  console.error(options.error);
  process.exit(2);
}
try {
  const consistent = await monitor(options);
  console.log(consistent ? 'CONSISTENT' : 'INCONSISTENT');
  process.exit(consistent ? 0 : 1);
} catch (err) {
  console.error(`monitor: ${err.message}`);
  process.exit(2);
}
