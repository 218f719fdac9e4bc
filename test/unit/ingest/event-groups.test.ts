import { describe, expect, it } from 'vitest';
import { normalizeEvent, type NormalizeContext } from '../../../src/ingest';
import { NOW } from './helpers';

const ctx: NormalizeContext = { now: NOW, ip: undefined, sentAt: undefined, historicalMigration: false, newUuid: () => '01890a5d-ac96-774b-bcce-b302099a8057' };
const normalize = (json: string) => normalizeEvent(JSON.parse(json), ctx);

describe('groups an event names', () => {
  it('drops Object.prototype names from $groups, keeping the event and the other groups', () => {
    const result = normalize('{"event": "e", "distinct_id": "d", "properties": {"$groups": {"__proto__": "a", "constructor": "b", "toString": "c", "company": "acme"}}}');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.keys(result.event.properties.$groups as object)).toEqual(['company']);
    expect(result.warning).toMatchObject({ type: 'invalid_group', details: { groupTypes: ['__proto__', 'constructor', 'toString'] } });
  });

  it('drops the group of a $groupidentify with such a type, or with a key past 400 characters', () => {
    for (const props of [{ $group_type: 'valueOf', $group_key: 'k' }, { $group_type: 'company', $group_key: 'k'.repeat(401) }]) {
      const result = normalizeEvent({ event: '$groupidentify', distinct_id: 'd', properties: { ...props, $group_set: { a: 1 } } }, ctx);
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.event.properties.$group_type).toBeUndefined();
    }
  });

  it('leaves ordinary groups alone, without a warning', () => {
    const result = normalizeEvent({ event: 'e', distinct_id: 'd', properties: { $groups: { company: 'acme', project: 42 } } }, ctx);
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.warning).toBeUndefined();
  });
});

describe('non-finite numbers as ids', () => {
  it('refuses a distinct_id of 1e309 (Infinity), and drops a non-finite $anon_distinct_id', () => {
    expect(normalize('{"event": "e", "distinct_id": 1e309}')).toMatchObject({ ok: false, warning: { type: 'invalid_distinct_id' } });
    const identify = normalize('{"event": "$identify", "distinct_id": "d", "properties": {"$anon_distinct_id": -1e309}}');
    expect(identify.ok).toBe(true);
    expect(identify.ok && '$anon_distinct_id' in identify.event.properties).toBe(false);
  });
});
