import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config.ts';
import { STATES_DIRECTORY } from '../../src/events/state-shelf.ts';
import { eventLogDirectory, openEventStore } from '../../src/events/open-store.ts';
import type { EventData, EventStore, ReadStreamOptions } from '../../src/events/port.ts';
import { payersAgent } from '../../src/families/governance/spend-governor/agent-stream.ts';
import { evolveGovernor, governorDecider } from '../../src/families/governance/spend-governor/decider.ts';
import { snapshotsWritten } from '../../src/kernel/state-snapshots.ts';
import { createLogger } from '../../src/logger.ts';
import { startService } from '../../src/service.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { TEST_SECRET } from '../support/service.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const AGENT = 'snapshot-agent';
const LEASES = 1_200;

/** The service on `dataDir`'s file log, with every stream read of its store noted. */
async function started(dataDir: string) {
  const settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ATTESTATION_SECRET: TEST_SECRET });
  const log = createLogger(settings);
  const opened = await openEventStore(settings, log);
  const reads: { stream: string; options: ReadStreamOptions | undefined }[] = [];
  const store: EventStore = { ...opened, readStream: (stream, options) => (reads.push({ stream, options }), opened.readStream(stream, options)) };
  const service = await startService(settings, store, log);
  return {
    url: service.url,
    store,
    reads,
    async stop() {
      await service.close();
      await opened.close();
    },
  };
}

/** Leases the governor itself decides, appended straight to the payer's agent stream, as paid reserves would append them. */
async function appendLeases(store: EventStore, payer: string, count: number): Promise<string> {
  let { stream, state } = await payersAgent(store, payer, AGENT);
  const batch: EventData[] = [];
  for (let i = 0; i < count; i++) {
    const paymentId = `payment-${payer.toLowerCase()}-0x${i.toString(16).padStart(64, '0')}`;
    const command = { kind: 'reserve' as const, agent_id: AGENT, payer: state.budget!.owner, amountMicros: 1n, purpose: 'snapshot test', ttlSeconds: 3_600, now: Math.floor(Date.now() / 1000), paymentId };
    for (const event of governorDecider.decide(command, state)) {
      state = evolveGovernor(state, event);
      batch.push({ id: randomUUID(), type: event.type, data: event.data });
    }
  }
  await store.appendToStream(stream, batch, { expectedRevision: BigInt(state.events - count - 1) });
  return stream;
}

describe('a long agent after a restart of the service', () => {
  it('is folded from its state snapshot and the events after it, and decides as the whole stream does', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'snapshot-restart-'));
    dirs.push(dataDir);
    const pay = createPayingFetch();
    const reserve = async (url: string): Promise<Record<string, unknown>> => {
      const res = await pay(`${url}/v1/governance/reserve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: AGENT, amount: '0.000001', purpose: 'calls', ttl_seconds: 3_600, budget: { cap: '20', period: 86_400 } }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { evidenceCore: Record<string, unknown> }).evidenceCore;
    };

    const first = await started(dataDir);
    await reserve(first.url);
    const stream = await appendLeases(first.store, pay.address, LEASES);
    // The paid call folds the leases appended behind its back, and writes the agent's snapshot.
    expect((await reserve(first.url))['reserved']).toBe(`0.00${LEASES + 2}`);
    await snapshotsWritten(first.store.stateShelf!);
    await first.stop();
    expect(readdirSync(join(eventLogDirectory(dataDir), STATES_DIRECTORY)).filter((file) => file.endsWith('.state'))).toHaveLength(1);

    const second = await started(dataDir);
    const record = await reserve(second.url);
    // Every lease counted: the two paid ones before the restart, the appended ones, and this one.
    expect(record['reserved']).toBe(`0.00${LEASES + 3}`);
    const agentReads = second.reads.filter((read) => read.stream === stream);
    // The first read of the agent began at the snapshot's last event (the last lease appended, which the paid call before the restart folded), not at its start.
    expect(agentReads[0]!.options?.fromRevision).toBe(BigInt(LEASES + 1));
    expect(agentReads.every((read) => read.options?.fromRevision !== undefined)).toBe(true);
    await second.stop();
  });
});
