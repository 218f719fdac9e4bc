import type { RecordedEvent } from '../../../streams';
import { LogBuilder } from './helpers';

/**
 * What a browser event carries for PostHog's person-property lifting (compat §10), varied by the
 * event's index only, so the seeded sequence below is the same as without it.
 */
const browserProperties = (i: number) => ({
  $browser: ['Chrome', 'Safari', 'Firefox'][i % 3],
  $current_url: `https://example.com/${i % 7}`,
  utm_source: i % 5 === 0 ? null : `src-${i % 4}`,
  $ip: '81.2.69.142',
  $geoip_country_code: ['GB', 'SE'][i % 2],
  ...(i % 11 === 0 ? { $geoip_city_name: 'London' } : {}),
});

/** The determinism tests' generator (its sequence is what their assertions were written against). */
function lcg(): (n: number) => number {
  let seed = 42;
  return (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
}

/** A seeded generator (mulberry32) drawing integers below n: spreads over all 40 ids, unlike lcg. */
export function mulberry32(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** A seeded mixed log: merges of every kind, groups past the type limit, personless events, re-sends, lifted properties. */
export function mixedLog(size: number, rand: (n: number) => number = lcg()): RecordedEvent[] {
  const log = new LogBuilder();
  const events: RecordedEvent[] = [];
  const id = () => `user-${rand(40)}`;
  for (let i = 0; i < size; i++) {
    const projectId = 1 + rand(2);
    const opts = { projectId, timestamp: new Date(Date.UTC(2024, 0, 1) + rand(10_000) * 1000).toISOString() };
    switch (rand(9)) {
      case 0:
        events.push(log.capture('$identify', id(), { $anon_distinct_id: id(), $set: { n: rand(3) }, ...browserProperties(i) }, opts));
        break;
      case 1:
        events.push(log.capture('$create_alias', id(), { alias: id() }, opts));
        break;
      case 2:
        events.push(log.capture('$merge_dangerously', id(), { alias: id() }, opts));
        break;
      case 3:
        events.push(
          log.capture('$groupidentify', id(), { $group_type: `t${rand(7)}`, $group_key: `k${rand(3)}`, $group_set: { v: rand(3) } }, opts),
        );
        break;
      case 4:
        events.push(log.capture('$pageview', id(), { $process_person_profile: false, $set: { x: 1 } }, opts));
        break;
      case 5:
        if (events.length > 0) {
          const again = events[rand(events.length)];
          events.push(log.capture('resent', 'whoever', {}, { ...opts, uuid: (again.data as { uuid: string }).uuid, projectId: again.metadata.projectId ?? 1 }));
        }
        break;
      default:
        events.push(
          log.capture('$pageview', id(), {
            ...browserProperties(i),
            $set: { [`p${rand(4)}`]: rand(5) },
            $set_once: { first: i },
            $unset: rand(4) === 0 ? ['p0'] : [],
            $groups: { [`t${rand(7)}`]: `k${rand(3)}` },
          }, opts),
        );
    }
  }
  return events;
}

/** Consecutive events of one project grouped into EventsCaptured records of 1 to 25 events. */
export function asBatches(events: readonly RecordedEvent[]): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  let size = 1;
  for (let i = 0; i < events.length; ) {
    const first = events[i];
    const group = [first];
    while (group.length < size && i + group.length < events.length && events[i + group.length].streamId === first.streamId) {
      group.push(events[i + group.length]);
    }
    i += group.length;
    size = (size * 7) % 25 + 1;
    out.push({ ...first, position: out.length + 1, type: 'EventsCaptured', data: { events: group.map((e) => e.data) } });
  }
  return out;
}
