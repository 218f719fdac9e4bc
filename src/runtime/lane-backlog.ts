import type { RecordedEvent } from '../../streams';

/**
 * A lane of a laned projection (see `ReadModelProjection.lane`): events of different lanes never
 * read each other's rows, so each lane may run ahead of the others. Stored as text.
 */
export type LaneKey = string;

/** Consecutive events of one lane, applied (with that lane's position) in one transaction. */
export interface LaneSlice {
  lane: LaneKey;
  events: RecordedEvent[];
}

interface Held {
  event: RecordedEvent;
  /** null: an event the projection does not read; it only moves the checkpoint. */
  lane: LaneKey | null;
  parts: number;
  done: boolean;
}

export interface LaneRules {
  /** The lane of an event the projection reads; null for one it does not. */
  laneOf(event: RecordedEvent): LaneKey | null;
  /** The work an event stands for (the captured events of a record), to cut slices of like cost. */
  partsOf(event: RecordedEvent): number;
}

/**
 * The events a laned projection has read and not yet applied everywhere, in log order. The
 * projection's checkpoint is the end of the prefix applied in every lane; each lane also records how
 * far it has gone past that (`lanePositions`, kept with the checkpoint), so after a restart the log
 * is read again from the checkpoint and the events a lane already applied are skipped.
 * Each round gives every lane with work one slice, the lane with the least work first: a lane with
 * a heavy backlog (a long merge chain) holds another's events back by one slice at most.
 */
export class LaneBacklog {
  private held: Held[] = [];
  /** Position of the last event taken in (the next read starts after it). */
  readTo: number;

  constructor(
    /** The projection's checkpoint: everything up to it is applied in every lane. */
    public checkpoint: number,
    /** Lanes that have applied events past the checkpoint, and how far. */
    private readonly lanePositions: Map<LaneKey, number>,
    private readonly rules: LaneRules,
  ) {
    this.readTo = checkpoint;
  }

  /** Events still to apply (those of every lane). */
  get pending(): number {
    let n = 0;
    for (const h of this.held) if (!h.done) n++;
    return n;
  }

  /** Holds the events past what was read before and up to `until`, in order. */
  take(events: readonly RecordedEvent[], until: number): void {
    for (const event of events) {
      if (event.position <= this.readTo) continue;
      if (event.position > until) break;
      const lane = this.rules.laneOf(event);
      const done = lane === null || event.position <= (this.lanePositions.get(lane) ?? this.checkpoint);
      this.held.push({ event, lane, parts: done ? 0 : Math.max(1, this.rules.partsOf(event)), done });
      this.readTo = event.position;
    }
    this.dropApplied();
  }

  /**
   * One slice per lane with work, of at most `budget` parts (at least one event), the lane with the
   * fewest pending parts first (ties: the oldest first). A lane that is the only one with work gets
   * up to `aloneBudget` parts instead: nothing else waits behind it.
   */
  round(budget: number, aloneBudget = budget): LaneSlice[] {
    const lanes = new Map<LaneKey, { events: RecordedEvent[]; parts: number[]; taken: number; total: number }>();
    for (const h of this.held) {
      if (h.done) continue;
      const lane = h.lane!;
      let entry = lanes.get(lane);
      if (!entry) lanes.set(lane, (entry = { events: [], parts: [], taken: 0, total: 0 }));
      entry.total += h.parts;
      if (entry.events.length === 0 || entry.taken + h.parts <= aloneBudget) {
        entry.events.push(h.event);
        entry.parts.push(h.parts);
        entry.taken += h.parts;
      } else entry.taken = Number.POSITIVE_INFINITY; // full: later events of the lane wait their turn
    }
    if (lanes.size > 1) for (const entry of lanes.values()) entry.events.length = withinBudget(entry.parts, budget);
    return [...lanes]
      .map(([lane, entry], order) => ({ lane, events: entry.events, total: entry.total, order }))
      // Stryker disable next-line ArithmeticOperator: equivalent, sort is stable and the lanes come oldest first: the tie-break only says so
      .sort((a, b) => a.total - b.total || a.order - b.order)
      .map(({ lane, events }) => ({ lane, events }));
  }

  /** The checkpoint once `slice` is applied: the end of the prefix then applied in every lane. */
  checkpointAfter(slice: LaneSlice): number {
    const inSlice = new Set(slice.events);
    let checkpoint = this.checkpoint;
    for (const h of this.held) {
      if (!h.done && !inSlice.has(h.event)) break;
      checkpoint = h.event.position;
    }
    return checkpoint;
  }

  /** Records a committed slice: its lane's position, and the checkpoint it moved to. */
  applied(slice: LaneSlice, checkpoint: number): void {
    const inSlice = new Set(slice.events);
    for (const h of this.held) if (inSlice.has(h.event)) h.done = true;
    this.lanePositions.set(slice.lane, slice.events[slice.events.length - 1].position);
    this.checkpoint = Math.max(this.checkpoint, checkpoint);
    this.dropApplied();
  }

  private dropApplied(): void {
    let n = 0;
    while (n < this.held.length && this.held[n].done) this.checkpoint = Math.max(this.checkpoint, this.held[n++].event.position);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,MethodExpression: equivalent, dropping the applied prefix only frees memory (applied events are skipped everywhere)
    if (n > 0) this.held = this.held.slice(n);
    for (const [lane, position] of this.lanePositions) if (position <= this.checkpoint) this.lanePositions.delete(lane);
  }
}

/** How many of the leading events (of these parts each) fit in `budget`: at least one. */
function withinBudget(parts: readonly number[], budget: number): number {
  let taken = parts[0];
  let n = 1;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, past the end parts[n] is undefined and the sum NaN, which stops the loop too
  while (n < parts.length && taken + parts[n] <= budget) taken += parts[n++];
  return n;
}
