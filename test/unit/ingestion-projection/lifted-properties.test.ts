import { describe, expect, it } from 'vitest';
import { personUuid } from '../../../projections/ingestion';
import { freshStore, LogBuilder, PROJECT, personRow } from './helpers';

const props = async (q: ReturnType<typeof freshStore>['q'], distinctId: string) =>
  (await q.personByDistinctId(PROJECT, distinctId))?.properties as Record<string, unknown> | undefined;
const version = async (q: ReturnType<typeof freshStore>['q'], distinctId: string) => (await q.personByDistinctId(PROJECT, distinctId))?.version;

const CHROME = {
  $browser: 'Chrome',
  $browser_version: 120,
  $os: 'Mac OS X',
  $os_version: '14.1',
  $device_type: 'Desktop',
  $current_url: 'https://shop.example/landing?utm_source=news',
  $pathname: '/landing',
  $referrer: 'https://news.example/',
  $referring_domain: 'news.example',
  $screen_width: 2560,
  $viewport_width: 1600,
};

/** What the capture endpoint stores after a successful GeoIP lookup of the client address. */
const LONDON = {
  $ip: '81.2.69.160',
  $geoip_city_name: 'London',
  $geoip_country_name: 'United Kingdom',
  $geoip_country_code: 'GB',
  $geoip_continent_name: 'Europe',
  $geoip_continent_code: 'EU',
  $geoip_time_zone: 'Europe/London',
};

describe('ingestion projection: person properties lifted from events (PostHog compat §10)', () => {
  it('given a first $pageview with browser, OS, device, URL and referrer, then the new person holds them and their $initial_ twins', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { ...CHROME, $lib: 'web', custom: 'not lifted' }));
    expect(await props(q, 'anon')).toEqual({
      ...CHROME,
      $initial_browser: 'Chrome',
      $initial_browser_version: 120,
      $initial_os: 'Mac OS X',
      $initial_os_version: '14.1',
      $initial_device_type: 'Desktop',
      $initial_current_url: CHROME.$current_url,
      $initial_pathname: '/landing',
      $initial_referrer: 'https://news.example/',
      $initial_referring_domain: 'news.example',
      $initial_screen_width: 2560,
      $initial_viewport_width: 1600,
    });
  });

  it('given later events with other values, then $initial_ twins are never overwritten while the latest value is set', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(
      log.capture('$pageview', 'anon', { $browser: 'Chrome', utm_source: 'news' }),
      log.capture('$pageview', 'anon', { $browser: 'Firefox', utm_source: 'ads' }),
    );
    expect(await props(q, 'anon')).toMatchObject({
      $browser: 'Firefox',
      $initial_browser: 'Chrome',
      utm_source: 'ads',
      $initial_utm_source: 'news',
    });
  });

  it('given every UTM parameter and click id, then each is set with its $initial_ twin', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    const campaign = {
      utm_source: 's', utm_medium: 'm', utm_campaign: 'c', utm_content: 'co', utm_name: 'n', utm_term: 't',
      gclid: 'g1', gad_source: 'g2', gclsrc: 'g3', dclid: 'd', gbraid: 'gb', wbraid: 'wb', fbclid: 'fb',
      msclkid: 'ms', twclid: 'tw', li_fat_id: 'li', mc_cid: 'mc', igshid: 'ig', ttclid: 'tt', rdt_cid: 'rd',
      irclid: 'ir', _kx: 'kx', epik: 'ep', qclid: 'qc', sccid: 'sc',
    };
    await apply(log.capture('$pageview', 'anon', { ...campaign, utm_other: 'not in the list' }));
    const initial = Object.fromEntries(Object.entries(campaign).map(([k, v]) => [`$initial_${k}`, v]));
    expect(await props(q, 'anon')).toEqual({ ...campaign, ...initial });
  });

  it('given a null campaign param, then it is kept in $set but never written as $initial_, so the real first touch still lands', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { gclid: null }));
    expect(await props(q, 'anon')).toEqual({ gclid: null });
    await apply(log.capture('$pageview', 'anon', { gclid: 'real' }));
    expect(await props(q, 'anon')).toEqual({ gclid: 'real', $initial_gclid: 'real' });
  });

  it('given $process_person_profile: false, then nothing is lifted and no person is created', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { ...CHROME, ...LONDON, utm_source: 'x', $process_person_profile: false }));
    expect(await q.personByDistinctId(PROJECT, 'anon')).toBeUndefined();
  });

  it('given an existing person and a personless event, then its properties do not move', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { $browser: 'Chrome', utm_source: 'a' }));
    await apply(log.capture('$pageview', 'anon', { $browser: 'Safari', utm_source: 'b', $process_person_profile: false }));
    expect(await props(q, 'anon')).toMatchObject({ $browser: 'Chrome', utm_source: 'a' });
    expect(await version(q, 'anon')).toBe(0);
  });

  it("given explicit $set and $set_once for lifted keys, then the event's explicit values win", async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(
      log.capture('$pageview', 'anon', {
        $browser: 'Chrome',
        utm_source: 'lifted',
        $set: { $browser: 'explicit browser' },
        $set_once: { $initial_utm_source: 'explicit first touch' },
      }),
    );
    expect(await props(q, 'anon')).toEqual({
      $browser: 'explicit browser',
      $initial_browser: 'Chrome',
      utm_source: 'lifted',
      $initial_utm_source: 'explicit first touch',
    });
  });

  it('given GeoIP properties on the event, then $geoip_* are set with $initial_geoip_* twins, unknown ones null', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', LONDON));
    const p = (await props(q, 'anon'))!;
    expect(p).toMatchObject({
      $geoip_country_code: 'GB',
      $initial_geoip_country_code: 'GB',
      $geoip_city_name: 'London',
      $initial_geoip_city_name: 'London',
      $geoip_time_zone: 'Europe/London',
      $geoip_postal_code: null,
      $initial_geoip_postal_code: null,
      $geoip_latitude: null,
    });
    expect(Object.keys(p).filter((k) => k.startsWith('$geoip_'))).toHaveLength(15);
    expect(Object.keys(p).filter((k) => k.startsWith('$initial_geoip_'))).toHaveLength(15);
    expect(p).not.toHaveProperty('$ip');
  });

  it('given a move to another country, then $geoip_* follow it (a stale city cleared) and $initial_geoip_* stay', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', LONDON));
    await apply(log.capture('$pageview', 'anon', { $ip: '89.160.20.129', $geoip_country_code: 'SE', $geoip_country_name: 'Sweden' }));
    expect(await props(q, 'anon')).toMatchObject({
      $geoip_country_code: 'SE',
      $geoip_country_name: 'Sweden',
      $geoip_city_name: null,
      $initial_geoip_country_code: 'GB',
      $initial_geoip_city_name: 'London',
    });
  });

  it('given $geoip_disable or no $ip, then GeoIP properties the event carries are not put on the person', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('e', 'a', { ...LONDON, $geoip_disable: true }));
    await apply(log.capture('e', 'b', { ...LONDON, $ip: null }));
    expect(await props(q, 'a')).toEqual({});
    expect(await props(q, 'b')).toEqual({});
  });

  it('given only frequently changing keys change on a non-person event, then no person write (PostHog write filter)', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { ...CHROME, ...LONDON }));
    const before = await props(q, 'anon');
    await apply(
      log.capture('$pageview', 'anon', {
        ...CHROME,
        ...LONDON,
        $current_url: 'https://shop.example/other',
        $browser_version: 121,
        $geoip_time_zone: 'Europe/Dublin',
      }),
    );
    expect(await props(q, 'anon')).toEqual(before);
    expect(await version(q, 'anon')).toBe(0);
  });

  it('given a filtered key changes together with a key that triggers a write, then every change is written', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { $current_url: 'https://a/', utm_source: 'one' }));
    await apply(log.capture('$pageview', 'anon', { $current_url: 'https://b/', utm_source: 'two' }));
    expect(await props(q, 'anon')).toMatchObject({ $current_url: 'https://b/', utm_source: 'two', $initial_utm_source: 'one' });
    expect(await version(q, 'anon')).toBe(1);
  });

  it('given a $set event or a new lifted key, then the filtered keys are written too', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { $current_url: 'https://a/' }));
    await apply(log.capture('$set', 'anon', { $current_url: 'https://b/' }));
    expect(await props(q, 'anon')).toMatchObject({ $current_url: 'https://b/' });
    await apply(log.capture('$pageview', 'anon', { $current_url: 'https://c/', $browser: 'Chrome' }));
    expect(await props(q, 'anon')).toMatchObject({ $current_url: 'https://c/', $browser: 'Chrome', $initial_browser: 'Chrome' });
  });

  it('given $identify merging an anonymous person into an identified one, then the survivor keeps its own values and the anonymous first touch fills the gaps', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { $browser: 'Chrome', utm_source: 'ads', $referrer: 'https://ads.example/' }));
    await apply(log.capture('signed_up', 'user', { $browser: 'Firefox', $set: { email: 'a@b.c' } }));
    await apply(log.capture('$identify', 'user', { $anon_distinct_id: 'anon', $browser: 'Edge', $current_url: 'https://app/' }));
    const user = personUuid(PROJECT, 'user');
    expect(await q.personIdOf(PROJECT, 'anon')).toBe(user);
    expect(await props(q, 'user')).toEqual({
      email: 'a@b.c',
      // the $identify event's own values are set last
      $browser: 'Edge',
      $current_url: 'https://app/',
      // the survivor's first touch wins over the merged person's
      $initial_browser: 'Firefox',
      // what only the anonymous person knew is kept
      utm_source: 'ads',
      $initial_utm_source: 'ads',
      $referrer: 'https://ads.example/',
      $initial_referrer: 'https://ads.example/',
      $initial_current_url: 'https://app/',
    });
    expect(personRow(db, user)?.is_identified).toBe(1);
  });

  it('given $identify of an id joining an existing person, then its lifted properties are written even if only filtered keys changed', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { $browser: 'Chrome' }));
    await apply(log.capture('$identify', 'user', { $anon_distinct_id: 'anon', $browser: 'Safari' }));
    expect(await props(q, 'user')).toEqual({ $browser: 'Safari', $initial_browser: 'Chrome' });
  });

  it('given $groupidentify, $exception or $$heatmap, then the person gets nothing from it', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$pageview', 'u', { $browser: 'Chrome' }));
    await apply(
      log.capture('$groupidentify', 'u', { $group_type: 'company', $group_key: 'c1', $browser: 'Edge', $set: { a: 1 } }),
      log.capture('$exception', 'u', { $browser: 'Edge', utm_source: 'x', $set: { b: 1 } }),
      log.capture('$$heatmap', 'u', { $browser: 'Edge', utm_source: 'x' }),
    );
    expect(await props(q, 'u')).toEqual({ $browser: 'Chrome', $initial_browser: 'Chrome' });
  });

  it('given $snapshot or $performance_event, then nothing is lifted', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$snapshot', 'a', { $browser: 'Chrome' }), log.capture('$performance_event', 'b', { $browser: 'Chrome' }));
    expect(await props(q, 'a')).toEqual({});
    expect(await props(q, 'b')).toEqual({});
  });

  it('given $os_name without $os, then it stands in for $os and is not kept itself', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('e', 'a', { $os_name: 'iOS' }));
    expect(await props(q, 'a')).toEqual({ $os: 'iOS', $initial_os: 'iOS' });
  });

  it('given a server-side event ($is_server), then the host OS is not lifted', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('e', 'a', { $is_server: true, $os: 'Linux', $os_version: '6.1', utm_source: 's' }));
    expect(await props(q, 'a')).toEqual({ utm_source: 's', $initial_utm_source: 's' });
  });

  it('given the same log folded twice, then the persons are byte for byte the same', async () => {
    const build = () => {
      const log = new LogBuilder();
      return [
        log.capture('$pageview', 'anon', { ...CHROME, ...LONDON, utm_source: 'a', gclid: null }),
        log.capture('$pageview', 'anon', { ...CHROME, $current_url: 'https://x/' }),
        log.capture('$identify', 'user', { $anon_distinct_id: 'anon', $os_name: 'iOS', fbclid: 'f' }),
      ];
    };
    const a = freshStore();
    const b = freshStore();
    await a.apply(...build());
    await b.apply(...build());
    const dump = (s: typeof a) => s.db.prepare('SELECT * FROM persons ORDER BY uuid').all();
    expect(dump(a)).toEqual(dump(b));
    expect(JSON.stringify(dump(a))).toBe(JSON.stringify(dump(b)));
  });
});
