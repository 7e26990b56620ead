import { z } from 'zod';
import { hash } from 'node:crypto';
import type { RecordPlace } from './decider.ts';
import { KeyedHistory } from './keyed-history.ts';
import { bigEndianBytesOf, KeyedRuns, wordsFromBigEndian } from './keyed-runs.ts';
import { inChunks } from './state-snapshots.ts';

/** A record's place and its number in the list (0 is the first record). */
export interface NumberedPlace extends RecordPlace {
  index: number;
}

/**
 * The places of a state's records (where each lies in its stream), in order, by the payment that
 * made each: what a decider asks at every call (did this payment write already?) and a read of an
 * earlier record needs. Once 2,048 were made, the last 1,024 to 2,047 are held whole and the ones
 * before them take 24 bytes each instead of about 250: 16 bytes of the payment id's SHA-256 with
 * the record's number (sorted runs, kernel/keyed-runs.ts), and its revision in a dense array. So
 * a stream written a million times holds about 24 MB of places, not 250. Immutable, as a state
 * is. 128 bits of hash: a match needs no read to confirm it (two payment ids sharing them would
 * take about 2^64 tries to find).
 *
 * A payment makes one record of a stream (a resumed call finds its own and writes nothing); were
 * a payment id to come again, a lookup answers its latest record while it is held whole, and its
 * first once archived.
 */
export class RecordPlaces {
  private constructor(
    /** The places after `previous`: fewer than 1,024. */
    private readonly current: KeyedHistory<NumberedPlace>,
    /** The 1,024 places before `current`, or none: archived when `current` fills. */
    private readonly previous: KeyedHistory<NumberedPlace>,
    private readonly byPayment: KeyedRuns,
    private readonly archivedRevisions: readonly Uint32Array[],
  ) {}

  static empty(): RecordPlaces {
    return new RecordPlaces(emptyWhole(), emptyWhole(), KeyedRuns.empty(PAYMENT_KEY), []);
  }

  get length(): number {
    return this.archived + this.previous.length + this.current.length;
  }

  /** How many of the first places are archived (a whole number of batches). */
  private get archived(): number {
    return this.archivedRevisions.length * BATCH;
  }

  /** What they hold, in characters (a kept state's weight, Decider.keptSize): `perPlace` a place held whole, 24 an archived one. */
  keptChars(perPlace: number): number {
    return (this.previous.length + this.current.length) * perPlace + this.archived * ARCHIVED_PLACE_BYTES;
  }

  /**
   * These places with `place` after the last. When 1,024 places follow the 1,024 before them,
   * those before are archived; so each place goes into a hash trie once.
   */
  append(place: RecordPlace): RecordPlaces {
    const current = this.current.append({ paymentId: place.paymentId, revision: place.revision, index: this.length });
    if (current.length < BATCH) return new RecordPlaces(current, this.previous, this.byPayment, this.archivedRevisions);
    if (this.previous.length === 0) return new RecordPlaces(emptyWhole(), current, this.byPayment, this.archivedRevisions);
    const batch = this.previous.toArray();
    // A revision past 32 bits (a stream of over 4 billion events) is not archived: its batch stays
    // whole, and is tried again at each append after it.
    if (batch.some((p) => p.revision > 0xffff_ffff)) return new RecordPlaces(current, this.previous, this.byPayment, this.archivedRevisions);
    return new RecordPlaces(
      emptyWhole(),
      current,
      // A payment archived already keeps its first place (the class comment).
      this.byPayment.withAbsent(paymentEntries(batch)),
      [...this.archivedRevisions, Uint32Array.from(batch, (p) => p.revision)],
    );
  }

  /** The latest place of the record this payment made, if it made one. */
  latestWithKey(paymentId: string): NumberedPlace | undefined {
    const held = this.current.latestWithKey(paymentId) ?? this.previous.latestWithKey(paymentId);
    if (held || this.byPayment.isEmpty) return held;
    const found = this.byPayment.find(paymentKeyOf(paymentId));
    return found && { paymentId, index: found[0]!, revision: this.revisionAt(found[0]!) };
  }

  /** The revision of record `index` (0 is the first), if there is one. */
  revisionOf(index: number): number | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    if (index < this.archived) return this.revisionAt(index);
    const inPrevious = index - this.archived;
    return inPrevious < this.previous.length ? this.previous.at(inPrevious)!.revision : this.current.at(inPrevious - this.previous.length)!.revision;
  }

  last(): NumberedPlace | undefined {
    return this.current.last() ?? this.previous.last();
  }

  private revisionAt(index: number): number {
    return this.archivedRevisions[Math.floor(index / BATCH)]![index % BATCH]!;
  }

  /** As a snapshot holds them (state-snapshots.ts): see recordPlacePieces. */
  *pieces(): Generator<RecordPlacesPiece> {
    for (const revisions of this.archivedRevisions) yield ['archivedRevisions', bigEndianBytesOf(revisions).toString('base64')];
    for (const bytes of this.byPayment.bytesInOrder(4 * BATCH)) yield ['archivedPayments', bytes.toString('base64')];
    for (const chunk of inChunks([...this.previous.toArray(), ...this.current.toArray()])) yield ['places', chunk.map((place) => [place.paymentId, place.revision])];
  }

  /** These places with a piece of `pieces` read back; pieces come in the order `pieces` yields them. */
  withPiece(piece: unknown): RecordPlaces {
    const parsed = placesPiece.parse(piece);
    const held = this.previous.length + this.current.length;
    switch (parsed[0]) {
      case 'archivedRevisions': {
        if (held > 0 || !this.byPayment.isEmpty) throw new Error('archived revisions after the places they precede');
        const revisions = wordsFromBigEndian(Buffer.from(parsed[1], 'base64'));
        if (revisions.length !== BATCH) throw new Error(`archived revisions: ${revisions.length}, not a batch of ${BATCH}`);
        return new RecordPlaces(this.current, this.previous, this.byPayment, [...this.archivedRevisions, revisions]);
      }
      case 'archivedPayments': {
        if (held > 0) throw new Error('archived payments after the places they precede');
        const entries = wordsFromBigEndian(Buffer.from(parsed[1], 'base64'));
        const width = PAYMENT_KEY.keyWords + PAYMENT_KEY.valueWords;
        for (let at = PAYMENT_KEY.keyWords; at < entries.length; at += width) {
          if (entries[at]! >= this.archived) throw new Error(`archived payments: place ${entries[at]} of ${this.archived} archived places`);
        }
        const runs = this.byPayment.with(entries);
        if (runs.size > this.archived) throw new Error(`archived payments: ${runs.size} for ${this.archived} archived places`);
        return new RecordPlaces(this.current, this.previous, runs, this.archivedRevisions);
      }
      case 'places':
        return parsed[1].reduce<RecordPlaces>((places, [paymentId, revision]) => places.append({ paymentId, revision }), this);
    }
  }
}

const BATCH = 1_024;
/** An archived place: its payment's entry in the runs (20 bytes) and its revision (4). */
const ARCHIVED_PLACE_BYTES = 24;
/** 16 bytes of the payment id's SHA-256, then the record's number. */
const PAYMENT_KEY = { keyWords: 4, valueWords: 1 };

const emptyWhole = (): KeyedHistory<NumberedPlace> => KeyedHistory.empty((place) => place.paymentId);

/** The first 16 bytes of the payment id's SHA-256, as four words. */
function paymentKeyOf(paymentId: string): Uint32Array {
  // One-shot: a Hash object per place cost a fifth of appending one.
  const digest = hash('sha256', paymentId, 'buffer');
  return Uint32Array.of(digest.readUInt32BE(0), digest.readUInt32BE(4), digest.readUInt32BE(8), digest.readUInt32BE(12));
}

/** The batch's entries for the runs: the payment's key, then the place's number. */
function paymentEntries(batch: readonly NumberedPlace[]): Uint32Array {
  const width = PAYMENT_KEY.keyWords + PAYMENT_KEY.valueWords;
  const words = new Uint32Array(batch.length * width);
  batch.forEach((place, i) => {
    words.set(paymentKeyOf(place.paymentId), i * width);
    words[i * width + PAYMENT_KEY.keyWords] = place.index;
  });
  return words;
}

/**
 * Pieces ["archivedRevisions", base64] (a batch's revisions), ["archivedPayments", base64] (the
 * archived payments' runs, 20 bytes an entry), then ["places", [[paymentId, revision], ...]] (the
 * places held whole), in that order. A snapshot written before the archive holds "places" pieces
 * only, and reads back as the same places, archived as they are appended: the codecs whose pieces
 * these were (the containment chain's, the catalogue entry's) kept their version.
 */
const placesPiece = z.union([
  z.tuple([z.literal('archivedRevisions'), z.base64()]),
  z.tuple([z.literal('archivedPayments'), z.base64()]),
  z.tuple([z.literal('places'), z.array(z.tuple([z.string().min(1), z.number().int().nonnegative()]))]),
]);
type RecordPlacesPiece = z.input<typeof placesPiece>;

export const emptyRecordPlaces = (): RecordPlaces => RecordPlaces.empty();

export function recordPlacePieces(places: RecordPlaces): Generator<RecordPlacesPiece> {
  return places.pieces();
}

/** Reads a piece of recordPlacePieces back, in order, onto the places given. */
export function withPlacesOf(places: RecordPlaces, piece: unknown): RecordPlaces {
  return places.withPiece(piece);
}
