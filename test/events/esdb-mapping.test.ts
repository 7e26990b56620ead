import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ANY,
  EventStoreDBClient,
  NO_STREAM,
  STREAM_EXISTS,
  UnavailableError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
} from '@eventstore/db-client';
import { describe, expect, it, vi } from 'vitest';
import {
  fromClientExpectedRevision,
  fromResolvedEvent,
  isSystemEvent,
  mapClientError,
  positionOf,
  toClientEvent,
  toClientExpectedRevision,
} from '../../src/events/esdb/mapping.ts';
import { createEsdbEventStore, normaliseConnectionString } from '../../src/events/esdb/store.ts';
import { esdbStatesDirectory, openEventStore, openEventStoreForReading } from '../../src/events/open-store.ts';
import { AppendTooLargeError, EventStoreUnavailableError, WrongExpectedRevisionError } from '../../src/events/port.ts';
import { heldWholeWindow } from '../../src/events/stream-window.ts';
import { silentLogger } from './helpers.ts';

describe('EventStoreDB adapter: mapping to and from the client', () => {
  it('maps every expected revision both ways', () => {
    expect(toClientExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toClientExpectedRevision('exists')).toBe(STREAM_EXISTS);
    expect(toClientExpectedRevision('any')).toBe(ANY);
    expect(toClientExpectedRevision(7n)).toBe(7n);
    for (const ours of ['no_stream', 'exists', 'any', 0n, 41n] as const) expect(fromClientExpectedRevision(toClientExpectedRevision(ours))).toBe(ours);
  });

  it('turns WrongExpectedVersion into WrongExpectedRevisionError with the actual revision', () => {
    const onExisting = mapClientError(new WrongExpectedVersionError(undefined, { streamName: 'payment-a', expected: NO_STREAM, current: 2n }), 'payment-a', 'no_stream');
    expect(onExisting).toBeInstanceOf(WrongExpectedRevisionError);
    expect(onExisting).toMatchObject({ stream: 'payment-a', expected: 'no_stream', actual: 2n });
    const onAbsent = mapClientError(new WrongExpectedVersionError(undefined, { streamName: 's', expected: STREAM_EXISTS, current: NO_STREAM }), 's');
    expect(onAbsent).toMatchObject({ expected: 'exists', actual: 'no_stream' });
  });

  it('turns the client’s UnavailableError and plain gRPC UNAVAILABLE errors into EventStoreUnavailableError', () => {
    expect(mapClientError(new UnavailableError(), 's')).toBeInstanceOf(EventStoreUnavailableError);
    const plain = Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 });
    const mapped = mapClientError(plain, 's');
    expect(mapped).toBeInstanceOf(EventStoreUnavailableError);
    expect((mapped as Error).cause).toBe(plain);
    expect(mapClientError(Object.assign(new Error('deadline'), { code: 4 }), 's')).toBeInstanceOf(EventStoreUnavailableError);
    const other = new Error('access denied');
    expect(mapClientError(other, 's')).toBe(other);
  });

  it('passes event ids through, so the server recognises a replayed append', () => {
    const id = randomUUID();
    expect(toClientEvent({ id, type: 'PaymentAuthorized', data: { a: 1 } })).toEqual({
      id,
      contentType: 'application/json',
      type: 'PaymentAuthorized',
      data: { a: 1 },
      metadata: {},
    });
  });

  it('reads $all positions as the commit position, and flags system events', () => {
    const created = new Date(1_700_000_000_000);
    const resolved: AllStreamResolvedEvent = {
      event: {
        streamId: 'payment-x',
        id: 'e1',
        isJson: true,
        revision: 3n,
        type: 'ResultSigned',
        created,
        data: { ok: true },
        metadata: { origin: 'test' },
        position: { commit: 9001n, prepare: 9001n },
      },
    };
    expect(fromResolvedEvent(resolved)).toEqual({
      id: 'e1',
      type: 'ResultSigned',
      data: { ok: true },
      metadata: { origin: 'test' },
      stream: 'payment-x',
      revision: 3n,
      position: 9001n,
      recordedAt: 1_700_000_000_000,
    });
    expect(positionOf({ commit: 18446744073709551615n, prepare: 18446744073709551615n })).toBe(-1n);
    expect(isSystemEvent({ streamId: '$stats-127.0.0.1:2113', type: '$statsCollected' })).toBe(true);
    expect(isSystemEvent({ streamId: '$$payment-x', type: '$metadata' })).toBe(true);
    expect(isSystemEvent({ streamId: 'payment-x', type: 'PaymentSettled' })).toBe(false);
  });

  it('accepts the esdb and kurrentdb connection-string schemes', () => {
    expect(normaliseConnectionString('esdb://localhost:2113?tls=false')).toBe('esdb://localhost:2113?tls=false');
    expect(normaliseConnectionString('kurrentdb+discover://admin:changeit@cluster:2113')).toBe('esdb+discover://admin:changeit@cluster:2113');
    expect(() => normaliseConnectionString('http://localhost:2113')).toThrow(/not an EventStoreDB connection string/);
  });
});

describe('EventStoreDB adapter against an unreachable server', () => {
  it('reports EventStoreUnavailableError (the HTTP layer answers 503) for appends and reads', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'esdb-unreachable-'));
    const store = await openEventStore({ EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false', DATA_DIR: dataDir }, silentLogger);
    try {
      await expect(store.appendToStream('s', [{ id: randomUUID(), type: 'T', data: {} }])).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(store.readStream('s')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      const readAll = async () => {
        for await (const e of store.readAll()) void e;
      };
      await expect(readAll()).rejects.toBeInstanceOf(EventStoreUnavailableError);
    } finally {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps the state snapshots of its long streams in DATA_DIR, a shelf of this process, closed with the store', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'esdb-states-'));
    try {
      const store = await openEventStore({ EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false', DATA_DIR: dataDir }, silentLogger);
      await store.stateShelf!.put('spend-governor\nagent-x', 'snapshot text');
      expect(await readdir(esdbStatesDirectory(dataDir))).toHaveLength(1);
      await store.close();
      await expect(store.stateShelf!.put('spend-governor\nagent-y', 'text')).rejects.toThrow(/closed/);
      const reader = await openEventStoreForReading({ EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false', DATA_DIR: dataDir }, silentLogger);
      expect(reader.stateShelf).toBeUndefined();
      await reader.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses an append over the server\'s MaxAppendSize (less headroom) before sending it, with the setting or the server\'s default', async () => {
    const unreachable = 'esdb://127.0.0.1:1?tls=false';
    const byDefault = await openEventStore({ EVENTSTORE_URL: unreachable, DATA_DIR: '/nonexistent' }, silentLogger);
    const raised = await openEventStore({ EVENTSTORE_URL: unreachable, EVENTSTORE_MAX_APPEND_BYTES: 4 * 1024 * 1024, DATA_DIR: '/nonexistent' }, silentLogger);
    try {
      expect(byDefault.appendLimitBytes).toBe(1_048_576 - 16 * 1024);
      expect(raised.appendLimitBytes).toBe(4 * 1024 * 1024 - 16 * 1024);
      const large = [{ id: randomUUID(), type: 'T', data: { text: 'x'.repeat(2 * 1024 * 1024) } }];
      // Refused at once, not after a connection attempt (which would be EventStoreUnavailableError).
      await expect(byDefault.appendToStream('s', large)).rejects.toBeInstanceOf(AppendTooLargeError);
      await expect(raised.appendToStream('s', large)).rejects.toBeInstanceOf(EventStoreUnavailableError);
    } finally {
      await Promise.all([byDefault.close(), raised.close()]);
    }
  });

  it('keeps a subscription retrying while the server is unreachable instead of failing it', async () => {
    const store = createEsdbEventStore({ connectionString: 'esdb://127.0.0.1:1?tls=false', log: silentLogger, resubscribeDelayMs: 20 });
    const errors: Error[] = [];
    const subscription = store.subscribeToAll({ onEvent: () => {}, onError: (e) => errors.push(e) });
    await new Promise((r) => setTimeout(r, 300));
    expect(errors).toEqual([]);
    await subscription.close();
    await store.close();
  });
});

describe('EventStoreDB adapter: a stream read bounded by maxBytes', () => {
  it('stops pulling from the client past the bound and ends the read there, and marks a read it cut nothing of', async () => {
    // Ten events of about 10 KB as the client hands them over (parsed), counting what is pulled.
    let pulled = 0;
    let ended = false;
    async function* served() {
      try {
        for (let n = 0; n < 10; n++) {
          pulled++;
          yield { event: { id: randomUUID(), type: 'Counted', data: { n, text: 'x'.repeat(10_000) }, metadata: {}, isJson: true, streamId: 's', revision: BigInt(n), position: { commit: BigInt(n), prepare: BigInt(n) }, created: new Date() } };
        }
      } finally {
        ended = true;
      }
    }
    const spy = vi.spyOn(EventStoreDBClient.prototype, 'readStream').mockImplementation((() => served()) as never);
    const store = createEsdbEventStore({ connectionString: 'esdb://127.0.0.1:1?tls=false', log: silentLogger });
    try {
      const cut = await store.readStream('s', { maxBytes: 25_000 });
      expect(cut.map((e) => Number(e.revision))).toEqual([0, 1, 2]);
      expect(heldWholeWindow(cut)).toBe(false);
      // The fourth was pulled to learn the window goes on, and the read was ended there.
      expect({ pulled, ended }).toEqual({ pulled: 4, ended: true });
      pulled = 0;
      const whole = await store.readStream('s', { maxBytes: 1_000_000 });
      expect(whole).toHaveLength(10);
      expect(heldWholeWindow(whole)).toBe(true);
      expect(pulled).toBe(10);
    } finally {
      spy.mockRestore();
      await store.close();
    }
  });
});
