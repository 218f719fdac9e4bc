import { gzipSync } from 'node:zlib';
import fc from 'fast-check';

/**
 * Hostile inputs, as fixed cases (each one a known way to break a parser) and as fast-check
 * arbitraries that mix them with random data. Bodies carry the project key and the fields
 * routes read, so they get past "missing api_key" into the code that handles the values.
 */

/** Fields the routes read, for bodies that reach validation rather than stop at "missing field". */
const FIELDS = [
  'key', 'name', 'filters', 'active', 'deleted', 'description', 'start_date', 'end_date', 'feature_flag_key',
  'parameters', 'secondary_metrics', 'archived', 'destination', 'interval', 'paused', 'start_at', 'end_at',
  'event', 'distinct_id', 'properties', 'timestamp', 'uuid', 'batch', 'data', 'sent_at', '$set', '$set_once',
  'groups', 'person_properties', 'group_properties', 'flag_keys_to_evaluate', 'historical_migration', 'offset',
  'token', 'api_key', 'personal_api_key', '$ip', 'type', 'config', 'model', 'hogql_query', 'limit',
];

export const nested = (depth: number, leaf: unknown = 1): string => '{"a":'.repeat(depth) + JSON.stringify(leaf) + '}'.repeat(depth);
const nestedArray = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

export interface BodyCase {
  name: string;
  contentType?: string;
  contentEncoding?: string;
  body: Buffer | string;
}

/** The fixed list: every one is sent to every route that takes a body. */
export function fixedBodies(projectKey: string): BodyCase[] {
  const key = JSON.stringify(projectKey);
  const withKey = (rest: string) => `{"api_key":${key},"token":${key},${rest}}`;
  return [
    { name: 'empty JSON body', contentType: 'application/json', body: '' },
    { name: 'whitespace JSON body', contentType: 'application/json', body: ' \n' },
    { name: 'invalid UTF-8 bytes', contentType: 'application/json', body: Buffer.concat([Buffer.from(withKey('"event":"e","distinct_id":"')), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from('","key":"k","name":"n"}')]) },
    {
      name: 'lone surrogate escapes',
      contentType: 'application/json',
      body: withKey('"event":"e\\ud800","distinct_id":"a\\ud800b","key":"k\\udc00","name":"\\ud800","properties":{"\\udfff":"\\ud800"},"filters":{"groups":[{"properties":[{"key":"\\ud800","value":"\\udc00"}]}]}'),
    },
    { name: 'nesting 5000 deep', contentType: 'application/json', body: withKey(`"event":"e","distinct_id":"d","key":"deep","properties":${nested(5000)},"filters":${nested(5000)},"parameters":${nested(5000)},"$set":${nested(5000)}`) },
    { name: 'nested arrays 5000 deep', contentType: 'application/json', body: withKey(`"event":"e","distinct_id":"d","batch":${nestedArray(5000)}`) },
    { name: 'huge numbers', contentType: 'application/json', body: withKey('"event":1e400,"distinct_id":-1e400,"key":99999999999999999999999,"filters":{"groups":[{"rollout_percentage":1e308}]},"limit":1e400,"offset":-0,"timestamp":1e308,"start_at":9e99') },
    { name: 'gzip garbage', contentType: 'application/json', contentEncoding: 'gzip', body: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02]) },
    { name: 'gzip bomb-ish', contentType: 'application/json', contentEncoding: 'gzip', body: gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20)) },
    { name: 'unknown content encoding', contentType: 'application/json', contentEncoding: 'x-unknown, gzip', body: withKey('"event":"e","distinct_id":"d"') },
    { name: 'text/plain JSON', contentType: 'text/plain', body: withKey('"event":"e","distinct_id":"d","key":"tp"') },
    { name: 'bad form', contentType: 'application/x-www-form-urlencoded', body: 'data=%ED%A0%80&data=x&compression=lz64&compression=gzip' },
    { name: 'multipart garbage', contentType: 'multipart/form-data; boundary=xyz', body: '--xyz\r\nContent-Disposition: form-data; name="data"\r\n\r\n%%%\r\n--xy' },
    { name: 'no content type', body: '{"a":1}' },
    { name: 'garbage content type', contentType: 'a/b/c; charset=nope', body: '{"a":1}' },
    { name: 'JSON with a charset it is not in', contentType: 'application/json; charset=utf-16', body: '{"a":1}' },
    { name: 'JSON scalar', contentType: 'application/json', body: '"just a string"' },
    { name: 'JSON array', contentType: 'application/json', body: `[${withKey('"event":"e","distinct_id":"d"')}]` },
    { name: 'truncated JSON', contentType: 'application/json', body: withKey('"event":"e"').slice(0, -3) },
    { name: 'prototype keys', contentType: 'application/json', body: withKey('"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"key":"proto","filters":{"__proto__":{"groups":5}}') },
  ];
}

export interface QueryCase {
  name: string;
  query: string;
}

export const fixedQueries: QueryCase[] = [
  { name: 'repeated parameters', query: 'limit=1&limit=2&offset=0&offset=1&search=a&search=b&distinct_id=a&distinct_id=b&level=INFO&level=ERROR&compression=gzip&compression=lz64&data=x&data=y&cursor=a&cursor=b' },
  { name: 'undecodable percent-encoding', query: 'search=%E0%A4%A&distinct_id=%ED%A0%80&data=%&token=%zz' },
  { name: 'huge and exponent numbers', query: 'limit=1e3&offset=99999999999999999999&v=1e400&group_type_index=99999999999999999999&after=99999-99-99' },
  { name: 'prototype names', query: '__proto__=x&constructor=y&hasOwnProperty=z&toString=1' },
];

export interface HeaderCase {
  name: string;
  headers: Record<string, string>;
}

export const fixedHeaders: HeaderCase[] = [
  { name: 'malformed Host', headers: { host: 'a b:99999' } },
  { name: 'malformed X-Forwarded-*', headers: { 'x-forwarded-host': '[::1', 'x-forwarded-proto': 'ht tp', 'x-forwarded-for': 'not-an-ip, 999.1.1.1' } },
  { name: 'garbage Authorization', headers: { authorization: 'Bearer a b c \u00ff' } },
  { name: 'Basic Authorization', headers: { authorization: 'Basic Zm9vOmJhcg==' } },
  { name: 'bad Content-Encoding', headers: { 'content-encoding': 'br, deflate, zstd, lz64' } },
];

const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });

/** Random header sets: Host, X-Forwarded-*, Authorization, Content-Encoding, Origin. */
export const headersArb = (keys: string[]) =>
  fc.record(
    {
      host: fc.oneof(headerText, fc.constantFrom('', '[::1]', 'x:0', 'evil.example', 'a'.repeat(300))),
      'x-forwarded-host': fc.oneof(headerText, fc.constant('evil.example')),
      'x-forwarded-proto': fc.oneof(headerText, fc.constantFrom('https', 'http, https', 'file')),
      'x-forwarded-for': fc.oneof(headerText, fc.ipV4(), fc.ipV6()),
      authorization: fc.oneof(
        headerText,
        fc.constantFrom(...keys).map((k) => `Bearer ${k}`),
        fc.constantFrom(...keys).map((k) => `Bearer ${k} ${k}`),
        fc.constant(`Bearer ${'x'.repeat(5000)}`),
      ),
      'content-encoding': fc.oneof(headerText, fc.constantFrom('gzip', 'deflate', 'br', 'lz64', 'gzip, gzip', 'identity')),
      origin: headerText,
      'if-none-match': headerText,
    },
    { requiredKeys: [] },
  );

const QUERY_NAMES = ['limit', 'offset', 'search', 'distinct_id', 'token', 'compression', 'data', 'level', 'cursor', 'v', 'config', 'active', 'event', 'after', 'before', 'group_type_index', 'group_key', 'archived', 'ver', 'ip', '_', 'personal_api_key', 'send_cohorts'];

/** Raw text that is not always valid percent-encoding. */
const rawQueryText = fc.oneof(
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.constantFrom('%', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%FF%FE', '%00', '+', '%2B', '1e3', '-1', '99999999999999999999', '18446744073709551616', '0x10', 'NaN', 'Infinity', 'true', ''),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
);

/** Random query strings: known names and random ones, repeated sometimes, values often malformed. */
export const queryArb = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_NAMES), fc.string({ maxLength: 10 }).map(encodeURIComponent)), rawQueryText), { maxLength: 6 })
  .chain((pairs) => fc.boolean().map((dup) => (dup && pairs.length ? [...pairs, pairs[0]] : pairs)))
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

/** One UTF-16 unit or code point: sometimes a lone surrogate, NUL or a noncharacter. */
const unit = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\u0000', '\uffff', '\ufeff') },
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
const text = (maxLength: number) => fc.string({ unit, maxLength });

/** A JSON value with lone surrogates, huge and odd numbers and some nesting. */
const valueArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text(20),
    fc.constantFrom(1e308, -1e308, 2 ** 63, -(2 ** 63), 0.1, -0, 99999999999999999999, Number.MAX_SAFE_INTEGER + 2),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('2024-01-01T00:00:00Z', '-7d', '1.2.3', '*', 'gzip', 'hour', 'File', 'HTTP', 'S3', '../../etc', '\u0000', 'true'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text(8), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Bodies: random JSON, objects of known fields with wrong types, and raw bytes. */
export const bodyArb = (projectKey: string): fc.Arbitrary<BodyCase> => {
  // Mostly JSON, so most bodies get past the content-type check into the routes' own handling.
  const contentType = fc.oneof(
    { weight: 4, arbitrary: fc.constant('application/json') },
    { weight: 2, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', 'multipart/form-data; boundary=b', '') },
  );
  // Shaped like an event, so generated values reach normalisation and the append.
  const event = fc.record(
    { event: fc.oneof(text(12), valueArb), distinct_id: fc.oneof(text(12), valueArb), properties: fc.oneof(fc.dictionary(text(8), valueArb, { maxKeys: 5 }), valueArb), uuid: valueArb, timestamp: valueArb, $set: valueArb },
    { requiredKeys: ['event', 'distinct_id'] },
  );
  const eventBody = fc.oneof(
    event.map((e) => JSON.stringify({ api_key: projectKey, ...e })),
    fc.array(event, { maxLength: 4 }).map((batch) => JSON.stringify({ api_key: projectKey, batch })),
  );
  const knownFields = fc
    .dictionary(fc.constantFrom(...FIELDS), valueArb, { maxKeys: 8 })
    .map((o) => JSON.stringify({ api_key: projectKey, ...o }));
  const bodyText = fc.oneof(
    { arbitrary: eventBody, weight: 3 },
    knownFields,
    fc.json({ maxDepth: 4 }),
    valueArb.map((v) => JSON.stringify(v) ?? 'null'),
    fc.integer({ min: 20, max: 200 }).map((d) => `{"api_key":${JSON.stringify(projectKey)},"event":"e","distinct_id":"d","properties":${nested(d)},"filters":${nested(d)}}`),
    text(200),
  );
  const bytes = fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a));
  return fc.oneof(
    fc.record({ name: fc.constant('text'), contentType, body: bodyText }),
    fc.record({ name: fc.constant('bytes'), contentType, body: bytes }),
    fc.record({ name: fc.constant('gzip'), contentType, contentEncoding: fc.constant('gzip'), body: fc.oneof(bytes, bodyText.map((t) => gzipSync(t))) }),
  );
};
