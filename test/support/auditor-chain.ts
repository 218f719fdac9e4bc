import { createHash } from 'node:crypto';
import type { AppendContext } from '../../src/store/event-log';

/**
 * The chain as docs/auditing.md defines it, written from the document and not from
 * src/store/hash-chain.ts: what the adapters' head hashes are checked against.
 */
export function auditorHeadHash(
  appended: { streamId: string; type: string; schemaVersion: number; data: unknown; eventId: string; context: AppendContext }[],
  recordedAt: string,
): string {
  const revisions = new Map<string, number>();
  let prev = '';
  for (const e of appended) {
    const revision = (revisions.get(e.streamId) ?? -1) + 1;
    revisions.set(e.streamId, revision);
    const c = e.context;
    const text = JSON.stringify([prev, e.streamId, revision, e.type, e.schemaVersion, e.data, e.eventId, recordedAt, c.projectId ?? null, c.actor, c.causationId ?? null, c.correlationId ?? null]);
    prev = createHash('sha256').update(text, 'utf8').digest('hex');
  }
  return prev;
}
