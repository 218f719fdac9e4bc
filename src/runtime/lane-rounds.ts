import type { RecordedEvent } from '../../streams';
import type { LaneBacklog, LaneSlice } from './lane-backlog';

/**
 * A laned projection's slice: about one full EventsCaptured record. Each lane with work gets one
 * slice per round, so this bounds how long a heavy lane holds the others' events back.
 */
export const SLICE_PARTS = 10_000;
/** A lane with no other lane waiting takes up to this many in one slice. */
export const MAX_SLICE_PARTS = 250_000;
/** Without append notices, how long a lone lane's slice runs before it lets the log be read again. */
export const UNNOTIFIED_SLICE_MS = 250;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What a round needs of the runner that binds the projection. */
export interface LaneRoundHost {
  /** One slice in one transaction, asking `stop` after each event; the checkpoint and the part applied. */
  applySlice(slice: LaneSlice, stop?: () => Promise<boolean>): Promise<{ checkpoint: number; done: LaneSlice }>;
  /** Moves the stored checkpoint (not behind the stored one); answers where it stands. */
  writeCheckpoint(position: number): Promise<number>;
  /** The projection's checkpoint as the runner knows it, and the runner told of a new one. */
  checkpoint(): number;
  committed(checkpoint: number, events: readonly RecordedEvent[] | null): void;
  /** The log moved since it was last read (append notices); false when there are none. */
  logMoved(): boolean;
  /** Whether append notices arrive at all: without them a lone slice ends after a time instead. */
  readonly notified: boolean;
}

/**
 * Takes a batch into a laned projection's backlog, then gives each lane with work one slice. A
 * lane working alone takes a long slice (the merges of a slice are written once at its end) but
 * ends it after the event in progress once the log has moved, so events appended meanwhile, in
 * other lanes, wait for one event of it at most.
 */
export async function applyRound(lanes: LaneBacklog, batch: readonly RecordedEvent[], until: number, host: LaneRoundHost): Promise<void> {
  lanes.take(batch, until);
  const slices = lanes.round(SLICE_PARTS, MAX_SLICE_PARTS);
  const alone = slices.length === 1;
  for (const slice of slices) {
    const startedAt = performance.now();
    // Asked between two events: a turn of the event loop first, or an append notice (a message
    // from another thread) could not arrive while the slice runs.
    const stop = alone
      ? async () => {
          await yieldToLoop();
          return host.logMoved() || (!host.notified && performance.now() - startedAt > UNNOTIFIED_SLICE_MS);
        }
      : undefined;
    const { checkpoint, done } = await host.applySlice(slice, stop);
    lanes.applied(done, checkpoint);
    host.committed(checkpoint, done.events);
  }
  // Events the projection does not read move its checkpoint too.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, writeCheckpoint never moves the stored checkpoint back; the comparison saves a transaction
  if (lanes.checkpoint > host.checkpoint()) host.committed(await host.writeCheckpoint(lanes.checkpoint), null);
}
