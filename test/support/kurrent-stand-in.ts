import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  END,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type EventData,
  type EventStoreDBClient,
  type Filter,
  type Position,
  type ReadPosition,
} from '@eventstore/db-client';

/*
 * An in-memory stand-in for a KurrentDB server's streams and `$all`, behind the client methods the
 * adapter calls. No KurrentDB server can be installed here: this exercises the adapter's own logic
 * (paging, filtering, the resume after a position, the live wake-up, conflicts) by the whole log contract.
 * It follows the server's documented behaviour, and is strict where the adapter could go wrong:
 *  - `$all` positions are byte offsets of records of varying size, not dense, and every record
 *    here has commit == prepare (an appendToStream write); an append's answer has the last
 *    event's record as commit position and the first's (the transaction's) as prepare position;
 *  - the events of one append are consecutive records of `$all`;
 *  - a read of `$all` from a position that is not a record's start is refused ("invalid position"),
 *    a forward read includes the record at its start, a backward one excludes it (or includes it,
 *    with `backwardsInclusive`: the adapter must not depend on which);
 *  - system records are interleaved ($epoch at the start, $statsCollected every third append,
 *    $metadata writes, `$>` links in $ce- streams), as the server writes its own;
 *  - stream reads carry no commit position (an unsigned -1), only the prepare position, as
 *    servers before stream reads carried positions do;
 *  - a missing stream is StreamNotFoundError, a conflict the client's WrongExpectedVersionError.
 * What it cannot show is the real server's timing, clustering or limits (MaxAppendSize): that is
 * what EVENTSTORE_CONNECTION_STRING runs the same contract against.
 */

interface Rec {
  streamId: string;
  type: string;
  id: string;
  revision: bigint;
  data: string;
  metadata: string;
  created: Date;
  position: bigint;
}

const NONE = (1n << 64n) - 1n;

export class KurrentStandIn {
  private readonly all: Rec[] = [];
  private readonly streams = new Map<string, Rec[]>();
  private readonly live = new Set<{ emitter: EventEmitter; filter?: Filter }>();
  private next = 0n;
  private appendsMade = 0;

  /** `olderBytes`: where the log resumes after its epoch record, as on a server whose log has grown far. */
  constructor(private readonly options: { backwardsInclusive?: boolean; olderBytes?: bigint } = {}) {
    this.write('$epochs', '$epoch', { n: 0 });
    this.next += options.olderBytes ?? 0n;
    this.write('$$$settings', '$metadata', {});
  }

  /** A stream deleted and scavenged: its records leave `$all` (what a KurrentDB chain's seal must catch). */
  scavengeStream(streamId: string): void {
    this.streams.delete(streamId);
    for (let i = this.all.length - 1; i >= 0; i--) if (this.all[i].streamId === streamId) this.all.splice(i, 1);
  }

  /** A client over this stand-in: each call is a separate handle, as separate processes would have. */
  client(): EventStoreDBClient {
    return {
      appendToStream: (stream: string, events: EventData | EventData[], options: { expectedRevision?: AppendExpectedRevision } = {}) =>
        this.appendToStream(stream, Array.isArray(events) ? events : [events], options.expectedRevision ?? 'any'),
      readStream: (stream: string, options: { fromRevision?: bigint | typeof END; maxCount?: number | bigint; direction?: string } = {}) => this.readStream(stream, options),
      readAll: (options: { fromPosition?: ReadPosition; maxCount?: number | bigint; direction?: string } = {}) => this.readAll(options),
      subscribeToAll: (options: { fromPosition?: ReadPosition; filter?: Filter } = {}) => this.subscribeToAll(options),
      dispose: async () => undefined,
    } as unknown as EventStoreDBClient;
  }

  private write(streamId: string, type: string, data: unknown, metadata: unknown = {}, id: string = randomUUID()): Rec {
    const events = this.streams.get(streamId) ?? [];
    const text = JSON.stringify(data);
    const rec: Rec = { streamId, type, id, revision: BigInt(events.length), data: text, metadata: JSON.stringify(metadata), created: new Date(), position: this.next };
    // Records vary in size: a header, the names, the data and metadata.
    this.next += 80n + BigInt(Buffer.byteLength(streamId + type + text + rec.metadata));
    events.push(rec);
    this.streams.set(streamId, events);
    this.all.push(rec);
    for (const sub of this.live) if (passes(sub.filter, rec)) setImmediate(() => sub.emitter.emit('data', resolved(rec, rec.position)));
    return rec;
  }

  private async appendToStream(stream: string, events: EventData[], expected: AppendExpectedRevision) {
    await Promise.resolve();
    const current = this.streams.get(stream)?.length;
    const currentRevision = current === undefined ? NO_STREAM : BigInt(current - 1);
    const ok =
      expected === 'any' ||
      (expected === NO_STREAM && current === undefined) ||
      (expected === STREAM_EXISTS && current !== undefined) ||
      (typeof expected === 'bigint' && current !== undefined && expected === BigInt(current - 1));
    if (!ok) throw new WrongExpectedVersionError(undefined, { streamName: stream, expected, current: currentRevision });
    let last!: Rec;
    let first: Rec | null = null;
    for (const e of events) {
      if (e.contentType !== 'application/json') throw new Error('the stand-in takes JSON events only');
      last = this.write(stream, e.type, e.data, e.metadata, e.id);
      first ??= last;
    }
    // The system projections' links follow the write (a separate write of theirs).
    for (const rec of this.streams.get(stream)!.slice(-events.length)) this.write(`$ce-${stream.split('-')[0]}`, '$>', `${rec.revision}@${stream}`);
    if (++this.appendsMade % 3 === 0) this.write('$stats-127.0.0.1:2113', '$statsCollected', { appends: this.appendsMade });
    // As the server answers: the commit position is the last event's record, the prepare position the transaction's (the first event's).
    return { success: true, nextExpectedRevision: last.revision, position: { commit: last.position, prepare: first!.position } };
  }

  private async *readStream(stream: string, options: { fromRevision?: bigint | typeof END; maxCount?: number | bigint; direction?: string }) {
    await Promise.resolve();
    const events = this.streams.get(stream);
    if (!events) throw new StreamNotFoundError(undefined, stream);
    const count = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER);
    let slice: Rec[];
    if (options.direction === 'backwards') {
      // Backwards from a revision (inclusive) or from the end, newest first.
      const end = options.fromRevision === END || options.fromRevision === undefined ? events.length : Number(options.fromRevision) + 1;
      slice = events.slice(Math.max(0, end - count), end).reverse();
    } else {
      if (options.fromRevision === END) throw new Error('the stand-in reads a stream forwards from a revision only');
      const from = Number(options.fromRevision ?? 0n);
      slice = events.slice(from, from + count);
    }
    for (const rec of slice) yield resolved(rec, { commit: NONE, prepare: rec.position });
  }

  private indexOf(position: Position): number {
    if (position.commit !== position.prepare) throw new Error('invalid position: commit and prepare differ');
    const i = this.all.findIndex((r) => r.position === position.commit);
    if (i < 0) throw new Error(`invalid position ${position.commit}: not the start of a record`);
    return i;
  }

  private async *readAll(options: { fromPosition?: ReadPosition; maxCount?: number | bigint; direction?: string }) {
    await Promise.resolve();
    const count = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER);
    const from = options.fromPosition ?? (options.direction === 'backwards' ? END : START);
    let records: Rec[];
    if (options.direction === 'backwards') {
      const end = from === END ? this.all.length : from === START ? 0 : this.indexOf(from) + (this.options.backwardsInclusive ? 1 : 0);
      records = this.all.slice(Math.max(0, end - count), end).reverse();
    } else {
      const start = from === START ? 0 : from === END ? this.all.length : this.indexOf(from);
      records = this.all.slice(start, start + count);
    }
    for (const rec of records) yield resolved(rec, rec.position);
  }

  private subscribeToAll(options: { fromPosition?: ReadPosition; filter?: Filter }) {
    if (options.fromPosition !== END) throw new Error('the stand-in subscribes from END only (the adapter reads the catch-up itself)');
    const emitter = new EventEmitter() as EventEmitter & { unsubscribe(): Promise<void> };
    const sub = { emitter, filter: options.filter };
    emitter.unsubscribe = async () => {
      this.live.delete(sub);
      setImmediate(() => emitter.emit('end'));
    };
    this.live.add(sub);
    setImmediate(() => emitter.emit('confirmation'));
    return emitter;
  }
}

function passes(filter: Filter | undefined, rec: Rec): boolean {
  if (!filter) return true;
  const value = filter.filterOn === 'eventType' ? rec.type : rec.streamId;
  return 'regex' in filter ? new RegExp(filter.regex).test(value) : filter.prefixes.some((p) => value.startsWith(p));
}

function resolved(rec: Rec, position: bigint | Position) {
  const pos = typeof position === 'bigint' ? { commit: position, prepare: position } : position;
  return {
    event: {
      streamId: rec.streamId,
      id: rec.id,
      revision: rec.revision,
      type: rec.type,
      // As the client parses what the server stored.
      data: JSON.parse(rec.data),
      metadata: JSON.parse(rec.metadata),
      isJson: true,
      created: rec.created,
      position: pos,
    },
    commitPosition: pos.commit === NONE ? undefined : pos.commit,
  };
}
