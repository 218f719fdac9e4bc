import { merge, Observable } from 'rxjs';

/**
 * The append-notification port: how a runner learns that the log moved without polling a concrete
 * adapter. Notices are hints, never data: a subscription reads the log itself (and polls as a
 * backstop), so a lost or repeated notice costs latency, never correctness.
 */
export interface AppendNotifications {
  /** Last positions of appends committed through this process's log handle, as they commit. */
  readonly appended$: Observable<number>;
  /**
   * Emits whenever the log may have moved: this handle's appends, another thread's notice, and (for
   * a shared log) another process's append. A runner waits on it between reads.
   */
  readonly moved$: Observable<unknown>;
  /** Another thread or process appended up to `position`: wake this handle's live subscriptions now. */
  notify(position: number): void;
}

/** What an adapter offers for in-process notices: its own commits, and a way to be woken. */
export interface InProcessAppendSource {
  readonly appends: Observable<number>;
  notifyAppended(position: number): void;
}

/** A shared log's source: its own commits, plus the server's hint that any process appended. */
export interface HintedAppendSource extends InProcessAppendSource {
  /** Calls `wake` on every hint from now on, until the returned function is called. */
  onAppendHint(wake: () => void): () => void;
}

/** Notices of a shared log (PostgreSQL NOTIFY, a KurrentDB subscription): the log moved in any process. */
export function hintedAppendNotifications(source: HintedAppendSource): AppendNotifications {
  const hints = new Observable<void>((subscriber) => source.onAppendHint(() => subscriber.next()));
  return { appended$: source.appends, moved$: merge(source.appends, hints), notify: (position) => source.notifyAppended(position) };
}

/** In-process notices, as the embedded runtime has always had them (one log handle per thread). */
export function inProcessAppendNotifications(source: InProcessAppendSource): AppendNotifications {
  return { appended$: source.appends, moved$: source.appends, notify: (position) => source.notifyAppended(position) };
}
