/**
 * An event's place in the log: its record's position, then its index in that record (an
 * EventsCaptured carries many). Stored as two columns and compared in that order: a log position
 * is opaque (a KurrentDB one is a byte offset), so it is never combined with the index into one number.
 */
export interface Ordinal {
  position: number;
  index: number;
}
