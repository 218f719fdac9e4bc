import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/errors';
import {
  destinations,
  mergeConfig,
  parseDestinationConfig,
  redactConfig,
  validateDestinationConfig,
} from '../../../src/exports/destinations';
import { inBatches, makeRecords } from '../../unit/exports-formats/records';
import { runContext } from './run-context';

const issuesOf = (type: string, config: unknown) => {
  const result = validateDestinationConfig(type, config);
  return result.ok ? [] : result.issues.map((i) => `${i.field}: ${i.message}`);
};

describe('destination config validation', () => {
  it('S3: names missing and malformed fields', () => {
    expect(issuesOf('S3', {})).toEqual(['bucket_name: This field is required.']);
    expect(issuesOf('S3', { bucket_name: ' ', encryption: 'rot13', endpoint_url: 'ftp://x' })).toEqual([
      'bucket_name: This field may not be blank.',
      'endpoint_url: Must be an http(s) URL.',
      'encryption: Must be one of: AES256, aws:kms, or null.',
    ]);
    expect(issuesOf('S3', { bucket_name: 'b', file_format: 'CSV' })).toEqual(['file_format: Must be one of: JSONLines, Parquet.']);
    expect(issuesOf('S3', { bucket_name: 'b', max_file_size_mb: 0 })).toEqual(['max_file_size_mb: Must be greater than 0.']);
    expect(issuesOf('S3', { bucket_name: 'b', aws_access_key_id: 'AKIA' })).toEqual([
      'aws_secret_access_key: aws_access_key_id and aws_secret_access_key must be given together.',
    ]);
    expect(issuesOf('S3', { bucket_name: 'b', prefix: '{year}/{week}' })[0]).toMatch(/^prefix: Unknown placeholder\(s\) \{week\}; allowed: \{year\}/);
  });

  it("S3: a custom endpoint needs its own keys (the server's AWS credentials stay with AWS), the region is a plain name", () => {
    expect(issuesOf('S3', { bucket_name: 'b', endpoint_url: 'http://s3.example.com' })).toEqual([
      "aws_access_key_id: Required with endpoint_url: the server's own AWS credentials are only used with AWS's endpoints.",
    ]);
    expect(issuesOf('S3', { bucket_name: 'b' })).toEqual([]);
    expect(issuesOf('S3', { bucket_name: 'b', region: 'evil.example.com/x' })).toEqual(['region: Must be a region name such as us-east-1.']);
  });

  it('Postgres: host is a name or an address, not a socket path', () => {
    expect(issuesOf('Postgres', { user: 'u', host: '/var/run/postgresql', database: 'd' })).toEqual(['host: Must be a host name or an IP address.']);
  });

  it('S3: accepts only compressions the file format supports', () => {
    for (const compression of ['zstd', 'lz4', 'snappy']) {
      expect(issuesOf('S3', { bucket_name: 'b', compression })).toEqual([
        `compression: Compression '${compression}' is not supported for file_format JSONLines; supported: gzip, brotli, or null for none.`,
      ]);
    }
    for (const compression of ['zstd', 'lz4', 'snappy', 'gzip', 'brotli', null]) {
      expect(issuesOf('S3', { bucket_name: 'b', file_format: 'Parquet', compression })).toEqual([]);
    }
    expect(issuesOf('S3', { bucket_name: 'b', file_format: 'Parquet', compression: 'lzo' })).toEqual([
      'compression: Must be one of: gzip, brotli, zstd, lz4, snappy, or null.',
    ]);
  });

  it('S3: fills defaults and treats blank form values as unset', () => {
    const result = validateDestinationConfig('S3', { bucket_name: 'b', endpoint_url: '', compression: '', max_file_size_mb: '10' });
    expect(result).toEqual({
      ok: true,
      config: {
        bucket_name: 'b', region: 'us-east-1', prefix: '', aws_access_key_id: null, aws_secret_access_key: null,
        endpoint_url: null, encryption: null, kms_key_id: null, file_format: 'JSONLines', compression: null, max_file_size_mb: 10,
      },
    });
  });

  it('Postgres: requires connection fields and fills PostHog defaults', () => {
    expect(issuesOf('Postgres', {})).toEqual([
      'user: This field is required.', 'host: This field is required.', 'database: This field is required.',
    ]);
    expect(issuesOf('Postgres', { user: 'u', host: 'h', database: 'd', port: 'abc', include_events: 'x' })).toEqual([
      'port: Must be a port number.', 'include_events: Must be a list of event names.',
    ]);
    const result = validateDestinationConfig('Postgres', { user: 'u', host: 'h', database: 'd', port: '6543' });
    expect(result.ok && result.config).toEqual({
      user: 'u', password: '', host: 'h', port: 6543, database: 'd', schema: 'public', table_name: 'events',
      exclude_events: [], include_events: [], has_self_signed_cert: false,
    });
  });

  it('HTTP and File: name their fields', () => {
    expect(issuesOf('HTTP', { url: 'not a url' })).toEqual(['url: Must be an http(s) URL.', 'token: This field is required.']);
    expect(issuesOf('File', { compression: 'zstd' })).toEqual([
      'path: This field is required.',
    ]);
    expect(issuesOf('File', { path: '/tmp/x', compression: 'zstd' })[0]).toMatch(/^compression: Compression 'zstd' is not supported/);
  });

  it('rejects unknown types and throws a validation DomainError on `destination`', () => {
    expect(validateDestinationConfig('BigQuery', {})).toMatchObject({ ok: false, message: expect.stringContaining("Unsupported destination type 'BigQuery'") });
    let thrown: unknown;
    try {
      parseDestinationConfig('S3', { bucket_name: '', compression: 'lz4' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect(thrown).toMatchObject({ kind: 'validation', attr: 'destination' });
    expect((thrown as Error).message).toBe(
      "Invalid S3 destination config: bucket_name: This field may not be blank; compression: Compression 'lz4' is not supported for file_format JSONLines; supported: gzip, brotli, or null for none",
    );
  });
});

describe('redactConfig and mergeConfig', () => {
  it('drops each type\'s secret fields', () => {
    expect(redactConfig('S3', { bucket_name: 'b', aws_access_key_id: 'A', aws_secret_access_key: 'S' })).toEqual({ bucket_name: 'b' });
    expect(redactConfig('Postgres', { user: 'u', password: 'p', host: 'h' })).toEqual({ host: 'h' });
    expect(redactConfig('HTTP', { url: 'http://x', token: 't' })).toEqual({ url: 'http://x' });
    expect(redactConfig('Snowflake', { account: 'a', password: 'p', private_key: 'k' })).toEqual({ account: 'a' });
    expect(redactConfig('Mystery', { host: 'h', password: 'p', client_secret: 'c' })).toEqual({ host: 'h' });
    expect(redactConfig('S3', null)).toBeNull();
  });

  it('merges a PATCH into the stored config, keeping secrets the client never saw', () => {
    const stored = { bucket_name: 'b', prefix: 'old', aws_access_key_id: 'A', aws_secret_access_key: 'S' };
    expect(mergeConfig(stored, { prefix: 'new', compression: null, region: undefined })).toEqual({
      bucket_name: 'b', prefix: 'new', compression: null, aws_access_key_id: 'A', aws_secret_access_key: 'S',
    });
    expect(mergeConfig(null, { a: 1 })).toEqual({ a: 1 });
    expect(mergeConfig(stored, null)).toEqual(stored);
  });
});

describe('NoOp destination', () => {
  it('counts records', async () => {
    const ctx = runContext();
    expect(await destinations.NoOp.write({}, ctx, inBatches(makeRecords(123), 50))).toEqual({ recordsCompleted: 123 });
    expect(ctx.logs).toEqual([{ level: 'INFO', message: 'NoOp export counted 123 records' }]);
  });
});
