import { excludeSystemEvents, streamNameFilter, type Filter } from '@eventstore/db-client';

/** What the server may put in a stream prefix: no `$` (system streams), nothing a regex or URL would mangle. */
export const STREAM_PREFIX = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}$/;

/**
 * Which part of the server's `$all` is this log: every non-system stream, or, with a prefix, the
 * streams whose names start with it (several logs, or parallel test runs, on one server). Port
 * stream `s` is server stream `prefix + s`: one to one.
 */
export class LogScope {
  constructor(readonly prefix = '') {
    if (prefix !== '' && !STREAM_PREFIX.test(prefix)) throw new Error(`invalid stream prefix ${JSON.stringify(prefix)}: letters, digits and _ . : -, not starting with $`);
  }

  serverStream(streamId: string): string {
    return this.prefix + streamId;
  }

  /** The port's name of a server stream, or null when the stream is not this log's. */
  portStream(serverStream: string): string | null {
    return serverStream.startsWith(this.prefix) ? serverStream.slice(this.prefix.length) : null;
  }

  /** Whether an event of `$all` belongs to this log, not to the server or to another log. */
  includes(event: { type: string; streamId: string }): boolean {
    return !isSystemEvent(event) && event.streamId.startsWith(this.prefix);
  }

  /**
   * The server-side filter of the live `$all` subscription. A gRPC filter holds one predicate, on
   * event types or on stream names: without a prefix, no system event types (stream metadata,
   * statistics, scavenges, projection state, the `$>` links of the system projections' `$ce-` and
   * `$et-` streams); with one, the prefix (which excludes the `$` system streams by itself).
   * `includes` checks both on this side.
   */
  filter(): Filter {
    return this.prefix === '' ? excludeSystemEvents() : streamNameFilter({ prefixes: [this.prefix] });
  }
}

/** Whether an event of `$all` belongs to the server rather than to a log. */
export function isSystemEvent(event: { type: string; streamId: string }): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}
