import { describe, expect, it } from 'vitest';
import { changesBetween, shown } from '../../../projections/activity/changes';
import { maskedDestination } from '../../../projections/activity/transitions';

describe('activity changes', () => {
  it('lists only the fields that differ, in name order, ignoring key order inside values and bookkeeping fields', () => {
    const before = { name: 'a', filters: { x: 1, y: 2 }, active: true, _deleted: false };
    const after = { active: false, filters: { y: 2, x: 1 }, name: 'b', extra: null, _deleted: true };
    expect(changesBetween('FeatureFlag', before, after)).toEqual([
      { type: 'FeatureFlag', action: 'changed', field: 'active', before: true, after: false },
      { type: 'FeatureFlag', action: 'changed', field: 'name', before: 'a', after: 'b' },
    ]);
    expect(changesBetween('Survey', null, { b: 1, a: 2 }).map((c) => [c.action, c.field, c.before, c.after])).toEqual([
      ['created', 'a', null, 2],
      ['created', 'b', null, 1],
    ]);
    expect(changesBetween('Survey', { a: 2 }, null)).toEqual([{ type: 'Survey', action: 'deleted', field: 'a', before: 2, after: null }]);
  });

  it('fingerprints credentials (by destination type, and anything sealed) and shows them masked', () => {
    const config = { bucket_name: 'b', aws_access_key_id: 'AKIA', aws_secret_access_key: 'enc:v1:abc', note: 'enc:v1:zzz' };
    const masked = maskedDestination({ type: 'S3', config });
    const text = JSON.stringify(masked);
    for (const secret of ['AKIA', 'enc:v1:']) expect(text).not.toContain(secret);
    expect(shown(masked)).toEqual({ type: 'S3', config: { bucket_name: 'b', aws_access_key_id: 'masked', aws_secret_access_key: 'masked', note: 'masked' } });
    // The same sealed value gives the same fingerprint; another one a change.
    expect(maskedDestination({ type: 'S3', config })).toEqual(masked);
    const resealed = maskedDestination({ type: 'S3', config: { ...config, aws_secret_access_key: 'enc:v1:abd' } });
    const changes = changesBetween('BatchExport', { destination: masked }, { destination: resealed });
    expect(changes).toHaveLength(1);
    expect(changes[0].before).toEqual(changes[0].after);
    // An unknown type masks anything that looks like a credential.
    expect(shown(maskedDestination({ type: 'Mystery', config: { password: 'p', host: 'h' } }))).toEqual({ type: 'Mystery', config: { password: 'masked', host: 'h' } });
  });
});
