import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { importCompiled } from './support/compiled.ts';
import { longestHealthWait } from './support/health-wait.ts';
import { presignPayments } from './support/paid-payments.ts';
import { freeLoopbackPort } from '../test/support/free-port.ts';

/**
 * Operations that keep state, each writing again and again to one stream (one memory store, one
 * catalogue entry, one agent's containment, one agent's budget): the mean time of a paid call in each quarter of
 * WRITES calls, over HTTP, one at a time, the service compiled and in this process. Target: flat,
 * the last quarter within 1.5x of the first (a call reads only what was appended since the last
 * one: src/kernel/decider.ts and kept-folds.ts). Before, each call read and folded its whole stream.
 */
const WRITES = 800;
const WARM_UP = 150;
/** Each operation's example, but for the spend governor a cap that every reserve of the run fits in. */
const OPERATIONS: Record<string, (example: Record<string, unknown>) => Record<string, unknown>> = {
  'memory.put': (example) => example,
  'verify-catalog.register': (example) => example,
  'containment.register': (example) => example,
  'governance.reserve': (example) => ({ ...example, budget: { cap: '1000000', period: 86_400 } }),
};

const { findOperation } = await importCompiled<typeof import('../src/catalog/index.ts')>('catalog/index.js');
const { loadSettings } = await importCompiled<typeof import('../src/config.ts')>('config.js');
const { eventLogDirectory, openEventStore } = await importCompiled<typeof import('../src/events/open-store.ts')>('events/open-store.js');
const { STATES_DIRECTORY } = await importCompiled<typeof import('../src/events/state-shelf.ts')>('events/state-shelf.js');
const { snapshotsWritten } = await importCompiled<typeof import('../src/kernel/state-snapshots.ts')>('kernel/state-snapshots.js');
const { createLogger } = await importCompiled<typeof import('../src/logger.ts')>('logger.js');
const { paymentRequirements } = await importCompiled<typeof import('../src/payments/x402/quote.ts')>('payments/x402/quote.js');
const { startService } = await importCompiled<typeof import('../src/service.ts')>('service.js');
const governor = await importCompiled<typeof import('../src/families/governance/spend-governor/decider.ts')>('families/governance/spend-governor/decider.js');
const { payersAgent } = await importCompiled<typeof import('../src/families/governance/spend-governor/agent-stream.ts')>('families/governance/spend-governor/agent-stream.js');
const { emptyRecordPlaces } = await importCompiled<typeof import('../src/kernel/record-places.ts')>('kernel/record-places.js');
const { KeyedHistory } = await importCompiled<typeof import('../src/kernel/keyed-history.ts')>('kernel/keyed-history.js');
const { FOLDED_BYTES_KEPT, keepFoldedStates } = await importCompiled<typeof import('../src/kernel/kept-folds.ts')>('kernel/kept-folds.js');

/** A busy agent's stream, kept folded (it was past the bound when the bound counted 10,000 events). */
const LONG_STREAM = 12_000;
/**
 * A very busy agent's stream (57,196 events): past the kept folds' bound while states kept their
 * signed records (a lease and its settlement are about 0.6 KB of JSON each), within it since they
 * keep where the records lie.
 */
const BUSY_STREAM = Math.ceil(FOLDED_BYTES_KEPT / 440);
/** Agents whose states together weigh about 1.3 times the default bound (what a state keeps of a lease: keptCharsOf), each well within it. */
const TAKING_TURNS = { agents: 24, events: 5_000 };

export default async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-stateful-'));
  const settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SETTLEMENT: 'local', ATTESTATION_SECRET: 'bench-attestation-secret-0123456789abcdef' });
  const log = createLogger(settings);
  const store = await openEventStore(settings, log);
  const service = await startService(settings, store, log);
  try {
    console.log(`${WRITES} paid writes to one stream after ${WARM_UP}, one at a time; mean ms a call in each quarter (target: last <= 1.5x first)`);
    for (const [id, bodyOf] of Object.entries(OPERATIONS)) {
      const op = findOperation(id)!;
      const body = JSON.stringify(bodyOf(op.example as Record<string, unknown>));
      // One payer for every call: the stream stays that payer's (memory, containment).
      const payments = presignPayments(paymentRequirements(op, settings), `${service.url}${op.path}`, WARM_UP + WRITES);
      const call = async (i: number): Promise<void> => {
        const res = await fetch(service.url + op.path, { method: op.method, headers: { 'content-type': 'application/json', 'payment-signature': payments[i]! }, body });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${id}: call ${i} answered ${res.status}`);
      };
      for (let i = 0; i < WARM_UP; i++) await call(i);
      const quarters: number[] = [];
      for (let q = 0; q < 4; q++) {
        const started = performance.now();
        for (let i = 0; i < WRITES / 4; i++) await call(WARM_UP + q * (WRITES / 4) + i);
        quarters.push((performance.now() - started) / (WRITES / 4));
      }
      const growth = quarters[3]! / quarters[0]!;
      console.log(`  ${id.padEnd(26)} ${quarters.map((ms) => ms.toFixed(1).padStart(6)).join(' ')} ms   last / first ${growth.toFixed(2)} (${growth <= 1.5 ? 'met' : 'NOT MET'})`);
    }
    await longAgentStream(service.url, store, settings, LONG_STREAM, 'open');
    await longAgentStream(service.url, store, settings, BUSY_STREAM, 'open');
    await longAgentStream(service.url, store, settings, LONG_STREAM, 'expired');
    await longAgentStream(service.url, store, settings, LONG_STREAM, 'settled in order');
    await agentsTakingTurns(service.url, store, settings, TAKING_TURNS.agents, TAKING_TURNS.events);
  } finally {
    await service.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  await firstCallAfterRestart(BUSY_STREAM, 3);
  archivedAgent(BUSY_STREAM, 30);
  archivedPlaces(100_000);
}

/**
 * The first call on a busy agent after a restart of the service: folded from the agent's state
 * snapshot and the few events after it (kernel/state-snapshots.ts), against the same call after a
 * restart with the log's snapshots removed, which folds the agent's stream from its start.
 * Restarts alternate, `rounds` of each; each call adds a lease to the stream.
 */
async function firstCallAfterRestart(events: number, rounds: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-restart-'));
  const settings = loadSettings({ PORT: String(await freeLoopbackPort()), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SETTLEMENT: 'local', ATTESTATION_SECRET: 'bench-attestation-secret-0123456789abcdef' });
  const log = createLogger(settings);
  const op = findOperation('governance.reserve')!;
  const agent = 'bench-restarted-agent';
  const body = JSON.stringify({ ...(op.example as Record<string, unknown>), agent_id: agent, budget: { cap: '1000000', period: 86_400 * 365 } });
  let payments: string[] = [];
  let next = 0;
  /** Starts the service, makes one call and answers its time, waits for the snapshots it wrote, and stops the service. */
  const restartAndCall = async (prepare: (store: Store) => Promise<void> = async () => {}): Promise<number> => {
    const store = await openEventStore(settings, log);
    const service = await startService(settings, store, log);
    try {
      if (payments.length === 0) payments = presignPayments(paymentRequirements(op, settings), `${service.url}${op.path}`, 2 + 2 * rounds);
      await prepare(store);
      const started = performance.now();
      const res = await fetch(service.url + op.path, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': payments[next++]! }, body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`governance.reserve after a restart answered ${res.status}`);
      const ms = performance.now() - started;
      await snapshotsWritten(store.stateShelf!);
      return ms;
    } finally {
      await service.close();
      await store.close();
    }
  };
  try {
    await restartAndCall(async (store) => {
      const first = await fetch(`http://127.0.0.1:${settings.PORT}${op.path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': payments[next++]! }, body });
      await first.arrayBuffer();
      await appendLeases(store, payerOf(payments[0]!), agent, events, 'open');
    });
    const fromSnapshot: number[] = [];
    const fromStart: number[] = [];
    for (let round = 0; round < rounds; round++) {
      fromSnapshot.push(await restartAndCall());
      rmSync(join(eventLogDirectory(dataDir), STATES_DIRECTORY), { recursive: true, force: true });
      fromStart.push(await restartAndCall());
    }
    const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
    const list = (times: number[]) => times.map((ms) => ms.toFixed(0)).join(', ');
    console.log(`  governance.reserve, the first call after a restart on an agent stream of about ${events} events (restarts alternated, ${rounds} each):`);
    console.log(`    from its state snapshot ${list(fromSnapshot)} ms; from the stream's start (snapshots removed) ${list(fromStart)} ms; median from the snapshot / from the start ${(median(fromSnapshot) / median(fromStart)).toFixed(2)}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

type Store = Awaited<ReturnType<typeof openEventStore>>;

/**
 * How an agent's leases stand when the calls come: still open; all expired unsettled (an agent
 * that lets its leases lapse: every one still in the window); or reserved, then settled in the
 * order they were reserved (each settlement the lease that expires first).
 */
type LeaseShape = 'open' | 'expired' | 'settled in order';

/**
 * An agent with a long stream (a busy agent): the first call after a restart reads and folds it
 * all, the next ones only what was appended since, unless the stream is past the kept folds'
 * bound. Its leases are decided by the governor itself and appended straight to the log, as
 * paid reserves and settlements would append them.
 */
async function longAgentStream(url: string, store: Store, settings: ReturnType<typeof loadSettings>, events: number, shape: LeaseShape): Promise<void> {
  const op = findOperation('governance.reserve')!;
  const agent = `bench-long-agent-${events}-${shape.replaceAll(' ', '-')}`;
  const body = JSON.stringify({ ...(op.example as Record<string, unknown>), agent_id: agent, budget: { cap: '1000000', period: 86_400 * 365 } });
  const payments = presignPayments(paymentRequirements(op, settings), `${url}${op.path}`, 7);
  const call = async (i: number): Promise<number> => {
    const started = performance.now();
    const res = await fetch(url + op.path, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': payments[i]! }, body });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`governance.reserve on the long stream answered ${res.status}`);
    return performance.now() - started;
  };
  const short = await call(0);
  const { length, bytes, weight } = await appendLeases(store, payerOf(payments[0]!), agent, events, shape);
  // The first call reads and folds everything appended above, as the first call after a restart
  // would; meanwhile another caller asks /health, to see how long the fold holds everyone else.
  const firstCall = call(1);
  const healthWait = await longestHealthWait(url, firstCall);
  const first = await firstCall;
  const calls = [];
  for (let i = 2; i < payments.length; i++) calls.push(await call(i));
  const median = calls.sort((a, b) => a - b)[Math.floor(calls.length / 2)]!;
  const kept = weight <= settings.STATE_CACHE_MB * 2 ** 20;
  console.log(`  governance.reserve on an agent stream of ${length} events, leases ${shape} (${(bytes / 2 ** 20).toFixed(1)} MiB of event data, of which its state keeps ${(weight / 2 ** 20).toFixed(1)} MiB; the kept folds hold ${settings.STATE_CACHE_MB} MiB, so ${kept ? 'it is kept with the others' : 'it is kept apart, the last such stream loaded'}):`);
  console.log(`    the first call ${first.toFixed(1)} ms (the longest /health answer meanwhile ${healthWait.toFixed(1)} ms), then median ${median.toFixed(1)} ms a call over ${calls.length} calls, against ${short.toFixed(1)} ms on an empty stream`);
}

/** The payer of a pre-signed payment: every call of the run is paid by one payer, whose agents they are. */
function payerOf(payment: string): string {
  return (decodePaymentSignatureHeader(payment).payload as { authorization: { from: string } }).authorization.from;
}

/**
 * Extends the payer's agent, whose budget a paid call opened, to `events` events of leases in
 * `shape`, decided by the governor itself and appended straight to the log, as paid reserves and
 * settlements would append them. Returns the stream's length and its events' data as JSON.
 */
async function appendLeases(store: Store, payer: string, agent: string, events: number, shape: LeaseShape): Promise<{ length: number; bytes: number; weight: number }> {
  const payersStream = await payersAgent(store, payer, agent);
  const stream = payersStream.stream;
  let state = payersStream.state;
  let length = (await store.readStream(stream)).length;
  const now = Math.floor(Date.now() / 1000);
  let bytes = 0;
  let weight = 0;
  const leases: string[] = [];
  while (length < events) {
    const batch: import('../src/events/port.ts').EventData[] = [];
    while (batch.length < 500 && length + batch.length < events) {
      // Shaped as the service names payments (their streams: payment-<payer>-<nonce>), so that events weigh what real ones do.
      const paymentId = `payment-${payer.toLowerCase()}-0x${(length + batch.length).toString(16).padStart(64, '0')}`;
      const owner = state.budget!.owner;
      const settling = shape === 'settled in order' && length + batch.length >= events / 2 && leases.length > 0;
      const command = settling
        ? { kind: 'settle' as const, agent_id: agent, lease_id: leases.shift()!, payer: owner, actualMicros: 1n, now, paymentId }
        : { kind: 'reserve' as const, agent_id: agent, payer: owner, amountMicros: 1n, purpose: 'bench', ttlSeconds: 600, now: shape === 'expired' ? now - 3_600 : now, paymentId };
      if (command.kind === 'reserve') leases.push(governor.leaseIdFor(agent, paymentId));
      for (const event of governor.governorDecider.decide(command, state)) {
        state = governor.evolveGovernor(state, event);
        bytes += JSON.stringify(event.data).length;
        weight += governor.keptCharsOf(event);
        batch.push({ id: crypto.randomUUID(), type: event.type, data: event.data });
      }
    }
    await store.appendToStream(stream, batch, { expectedRevision: BigInt(length - 1) });
    length += batch.length;
  }
  return { length, bytes, weight };
}

/**
 * Many busy agents whose calls take turns, together past the kept folds' bound (STATE_CACHE_MB):
 * the agents whose folds fit stay kept, and a call on one of the others folds its agent again,
 * from its state snapshot and the events after it (kernel/kept-folds.ts, state-snapshots.ts).
 * Then the same with the bound raised to hold them all: after
 * one call each, a call reads only what was appended since its last. Mean and median ms a call
 * of a round in which every agent is called once.
 */
async function agentsTakingTurns(url: string, store: Store, settings: ReturnType<typeof loadSettings>, agents: number, eventsEach: number): Promise<void> {
  const op = findOperation('governance.reserve')!;
  const payments = presignPayments(paymentRequirements(op, settings), `${url}${op.path}`, agents * 7);
  let next = 0;
  const call = async (agent: string): Promise<number> => {
    const body = JSON.stringify({ ...(op.example as Record<string, unknown>), agent_id: agent, budget: { cap: '1000000', period: 86_400 * 365 } });
    const started = performance.now();
    const res = await fetch(url + op.path, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': payments[next++]! }, body });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`governance.reserve of ${agent} answered ${res.status}`);
    return performance.now() - started;
  };
  const names = Array.from({ length: agents }, (_, i) => `bench-turns-${i}`);
  let bytes = 0;
  let weight = 0;
  for (const agent of names) {
    await call(agent);
    const appended = await appendLeases(store, payerOf(payments[0]!), agent, eventsEach, 'open');
    bytes += appended.bytes;
    weight += appended.weight;
  }
  const round = async (): Promise<number[]> => {
    const times: number[] = [];
    for (const agent of names) times.push(await call(agent));
    return times;
  };
  /** The last of `rounds` rounds: the first ones settle which folds are kept. */
  const settled = async (rounds: number): Promise<number[]> => {
    for (let i = 1; i < rounds; i++) await round();
    return round();
  };
  const pastTheBound = await settled(4);
  const raised = 2 * Math.ceil(weight / 2 ** 20);
  keepFoldedStates(store, raised * 2 ** 20);
  const allKept = await settled(2);
  keepFoldedStates(store, settings.STATE_CACHE_MB * 2 ** 20);
  const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  // A call that folded its agent whole takes many times one on a kept fold.
  const onKeptFold = median(allKept);
  const figures = (times: number[]) =>
    `${(times.reduce((sum, ms) => sum + ms, 0) / times.length).toFixed(1)} ms a call (mean; median ${median(times).toFixed(1)}), ${times.filter((ms) => ms > 5 * onKeptFold).length} of ${agents} calls folding their agent again (from its state snapshot)`;
  console.log(`  governance.reserve on ${agents} agents of ${eventsEach} events, calls taking turns (${(bytes / 2 ** 20).toFixed(1)} MiB of event data in all, of which their states keep ${(weight / 2 ** 20).toFixed(1)} MiB):`);
  const fits = weight <= settings.STATE_CACHE_MB * 2 ** 20 ? 'they fit' : 'they do not all fit';
  console.log(`    with STATE_CACHE_MB=${settings.STATE_CACHE_MB} (${fits}), the fourth round: ${figures(pastTheBound)}`);
  console.log(`    with STATE_CACHE_MB=${raised}, which holds them all, the second round: ${figures(allKept)}`);
}

/**
 * A busy agent's state once its leases span `days` days (`events` events: a reserve every so
 * often, every other lease settled a second later), folded in this process twice from the same
 * events: as evolve folds it, archiving what was decided over a day before (decider.ts), and
 * holding every lease whole, as the state did before the archive. Prints what each holds, the heap
 * it retains, its snapshot's size and the fold's time, and their ratios.
 */
function archivedAgent(events: number, days: number): void {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  const start = Math.floor(Date.now() / 1000) - days * 86_400;
  const owner = '0x1111111111111111111111111111111111111111';
  const agent = 'bench-archived';
  const history: import('../src/families/governance/spend-governor/decider.ts').GovernorEvent[] = [];
  let state = governor.initialGovernorState;
  for (let i = 0; history.length < events; i++) {
    // About events / 1.5 reserves (a reserve, and every other one's settlement), spread over the days.
    const now = start + Math.floor((i * days * 86_400 * 1.5) / events);
    const paymentId = `payment-${owner}-0x${i.toString(16).padStart(64, '0')}`;
    const reserve = { kind: 'reserve' as const, agent_id: agent, payer: owner, amountMicros: 1n, purpose: 'bench', ttlSeconds: 600, now, paymentId, ...(i === 0 ? { budget: { capMicros: 10n ** 12n, periodSeconds: 86_400 } } : {}) };
    const decided = governor.governorDecider.decide(reserve, state);
    const settle = { kind: 'settle' as const, agent_id: agent, lease_id: governor.leaseIdFor(agent, paymentId), payer: owner, actualMicros: 1n, now: now + 1, paymentId: `${paymentId}-settle` };
    for (const event of decided) state = governor.evolveGovernor(state, event);
    const settled = i % 2 === 0 ? governor.governorDecider.decide(settle, state) : [];
    for (const event of settled) state = governor.evolveGovernor(state, event);
    history.push(...decided, ...settled);
  }
  const fold = (evolve: typeof governor.evolveGovernor) => {
    collect();
    const before = process.memoryUsage().heapUsed;
    const started = performance.now();
    const folded = history.reduce(evolve, governor.initialGovernorState);
    const ms = performance.now() - started;
    collect();
    const heap = process.memoryUsage().heapUsed - before;
    const snapshot = [...governor.governorDecider.snapshot!.encode(folded)].reduce<number>((sum, piece) => sum + JSON.stringify(piece).length, 0);
    return { folded, ms, heap, snapshot };
  };
  const whole = fold(governor.governorEvolve(Number.MAX_SAFE_INTEGER));
  const archived = fold(governor.evolveGovernor);
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const line = (name: string, f: typeof whole) =>
    `    ${name}: ${f.folded.leases.size} leases and ${f.folded.refusals.size} refusals whole, ${f.folded.archive.size} archived; heap ${mib(f.heap)}, snapshot ${mib(f.snapshot)}, kept size ${mib(f.folded.keptChars)}; folded in ${f.ms.toFixed(0)} ms`;
  console.log(`  an agent's state after ${days} days of leases (${history.length} events, every other lease settled), folded in this process:`);
  console.log(line('holding every lease whole (as before the archive)', whole));
  console.log(line('archiving what was decided over a day before', archived));
  console.log(`    archived / whole: heap ${(archived.heap / whole.heap).toFixed(2)}, snapshot ${(archived.snapshot / whole.snapshot).toFixed(2)}, fold time ${(archived.ms / whole.ms).toFixed(2)}`);
}

/**
 * The places of `count` records of one stream (a memory key written that many times, a long
 * containment chain), as a state keeps them (kernel/record-places.ts: the last 1,024-2,047 whole,
 * the others 24 bytes each), beside the same places all held whole as before: the heap and array
 * buffers each retains, and the time to append them, in this process, alternated twice.
 */
function archivedPlaces(count: number): void {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  const paymentOf = (i: number) => `payment-0x1111111111111111111111111111111111111111-0x${i.toString(16).padStart(64, '0')}`;
  const build = {
    whole: () => {
      let places = KeyedHistory.empty<{ paymentId: string; revision: number }>((place) => place.paymentId);
      for (let i = 0; i < count; i++) places = places.append({ paymentId: paymentOf(i), revision: i });
      return places;
    },
    archived: () => {
      let places = emptyRecordPlaces();
      for (let i = 0; i < count; i++) places = places.append({ paymentId: paymentOf(i), revision: i });
      return places;
    },
  };
  const figures: Record<string, { mib: number[]; ms: number[] }> = { whole: { mib: [], ms: [] }, archived: { mib: [], ms: [] } };
  let kept: unknown;
  for (let round = 0; round < 2; round++) {
    for (const kind of ['whole', 'archived'] as const) {
      kept = undefined;
      collect();
      const before = process.memoryUsage();
      const started = performance.now();
      kept = build[kind]();
      figures[kind]!.ms.push(performance.now() - started);
      collect();
      const after = process.memoryUsage();
      figures[kind]!.mib.push((after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / 2 ** 20);
    }
  }
  if (kept === undefined) throw new Error('nothing built');
  const line = (kind: 'whole' | 'archived') => `${figures[kind]!.mib.map((mib) => mib.toFixed(1)).join(', ')} MiB, appended in ${figures[kind]!.ms.map((ms) => ms.toFixed(0)).join(', ')} ms`;
  const last = (kind: 'whole' | 'archived', what: 'mib' | 'ms') => figures[kind]![what][1]!;
  console.log(`  the places of ${count} records of one stream, in this process (two rounds):`);
  console.log(`    all held whole (as before): ${line('whole')}`);
  console.log(`    the last 1,024-2,047 whole, the others archived: ${line('archived')}`);
  console.log(`    archived / whole, second round: memory ${(last('archived', 'mib') / last('whole', 'mib')).toFixed(2)}, time ${(last('archived', 'ms') / last('whole', 'ms')).toFixed(2)}`);
}
