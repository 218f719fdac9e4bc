import type { Actor, RecordedEvent } from '../../streams';
import type { EventLog } from '../store/event-log';

function who(actor: Actor): string {
  switch (actor.type) {
    case 'user':
      return actor.keyId ? `user ${actor.id} (key ${actor.keyId})` : `user ${actor.id}`;
    case 'project_key':
      return `project key of project ${actor.projectId}`;
    default:
      return actor.type;
  }
}

/** One record as a person reads it: what, when, who, where in the log, then its data indented. */
export function describeRecord(e: RecordedEvent): string {
  const m = e.metadata;
  const head = [
    `#${e.revision}`,
    m.recordedAt,
    `${e.type} v${e.schemaVersion}`,
    `by ${who(m.actor)}`,
    `position ${e.position}`,
    e.hash ? `hash ${e.hash.slice(0, 16)}…` : 'no hash (before the chain)',
  ].join('  ');
  const context = [m.projectId !== null ? `project ${m.projectId}` : null, m.correlationId ? `correlation ${m.correlationId}` : null, m.causationId ? `caused by ${m.causationId}` : null, `event ${m.eventId}`]
    .filter((x): x is string => x !== null)
    .join(', ');
  const data = JSON.stringify(e.data, null, 2)
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
  return `${head}\n    ${context}\n${data}\n`;
}

/** Prints one stream's history, oldest first; returns how many records it holds. */
export async function showStream(log: EventLog, streamId: string, write: (text: string) => Promise<void> | void): Promise<number> {
  let shown = 0;
  for (let from = 0; ; ) {
    const page = await log.readStream(streamId, { fromRevision: from, maxCount: 500 });
    if (page.length === 0) break;
    for (const e of page) await write(describeRecord(e));
    shown += page.length;
    from = page[page.length - 1].revision + 1;
  }
  return shown;
}
