import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import { projectIdOf, readRecord } from '../../../projections/ingestion/fold-captured';
import { personUuid } from '../../../projections/ingestion/ids';
import { count, eventRow, freshStore, LogBuilder, PROJECT } from './helpers';

/** The events as one EventsCaptured record (what one /batch/ request appends). */
const recordOf = (events: RecordedEvent[], position = events[events.length - 1].position): RecordedEvent => ({
  ...events[0],
  position,
  type: 'EventsCaptured',
  data: { events: events.map((e) => e.data) },
});

const withStream = (event: RecordedEvent, streamId: string, projectId: number | null): RecordedEvent => ({
  ...event,
  streamId,
  metadata: { ...event.metadata, projectId },
});

describe('projectIdOf', () => {
  const log = new LogBuilder();
  const event = log.capture('$pageview', 'd');

  it('takes the metadata project first', () => {
    expect(projectIdOf(withStream(event, 'ingest-3', 9))).toBe(9);
  });

  it('else the number of an ingest-<id> stream, and nothing for any other stream', () => {
    expect(projectIdOf(withStream(event, 'ingest-12', null))).toBe(12);
    expect(projectIdOf(withStream(event, 'ingest-12x', null))).toBeNull();
    expect(projectIdOf(withStream(event, 'old-ingest-12', null))).toBeNull();
    expect(projectIdOf(withStream(event, 'ingest-', null))).toBeNull();
    expect(projectIdOf(withStream(event, 'flags-1', null))).toBeNull();
  });
});

describe('folding captured events', () => {
  it('folds nothing of an event that belongs to no project, alone or in a record', async () => {
    const s = freshStore();
    const log = new LogBuilder();
    const lone = withStream(log.capture('$identify', 'a', { $set: { x: 1 } }), 'elsewhere', null);
    const batch = withStream(recordOf([log.capture('$pageview', 'b', { $set: { y: 1 } }), log.capture('$pageview', 'c')]), 'elsewhere', null);
    await s.apply(lone, batch);
    expect(count(s.db, 'events')).toBe(0);
    expect(count(s.db, 'persons')).toBe(0);
    expect(count(s.db, 'person_distinct_ids')).toBe(0);
  });

  it('a personless event in a record creates no person and sets nothing, and carries the id the person would get', async () => {
    const s = freshStore();
    const log = new LogBuilder();
    const personless = log.capture('$pageview', 'anon', { $process_person_profile: false, $set: { plan: 'pro' } });
    const after = log.capture('$pageview', 'known', { $set: { plan: 'free' } });
    await s.apply(recordOf([personless, after]));
    expect(count(s.db, 'persons')).toBe(1);
    const row = eventRow(s.db, (personless.data as { uuid: string }).uuid)!;
    expect(row.person_id).toBe(personUuid(PROJECT, 'anon'));
    expect(JSON.parse(row.properties as string)).toEqual({ $process_person_profile: false });
  });

  it('group properties on an event other than $groupidentify create no group', async () => {
    for (const asRecord of [false, true]) {
      const s = freshStore();
      const log = new LogBuilder();
      const props = { $group_type: 'company', $group_key: 'acme', $group_set: { size: 3 }, $groups: { company: 'acme' } };
      const events = [log.capture('$pageview', 'd', props), log.capture('$pageview', 'e', { $process_person_profile: false, ...props })];
      await s.apply(...(asRecord ? [recordOf(events)] : events));
      expect(count(s.db, 'groups')).toBe(0);
      // The $groups column still names the group.
      expect(count(s.db, 'group_type_mappings')).toBe(1);
      expect(count(s.db, 'events')).toBe(2);
    }
  });

  it('readRecord answers null for a record whose uuids are not all strings (folded event by event)', async () => {
    const s = freshStore();
    const log = new LogBuilder();
    const good = log.capture('$pageview', 'd').data as never;
    const bad = { ...(log.capture('$pageview', 'e').data as object), uuid: 7 } as never;
    expect(await readRecord(s.session, undefined, PROJECT, [good, bad], new Map())).toBeNull();
    const reads = await readRecord(s.session, undefined, PROJECT, [good], new Map());
    expect(reads).not.toBeNull();
    expect(reads!.folded.size).toBe(0);
    expect(reads!.rows).toEqual([]);
  });
});
