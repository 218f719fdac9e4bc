import { describe, expect, it } from 'vitest';
import { exposureOf } from '../../../projections/ingestion/events-table';

describe('the exposure an event records (flag_exposures)', () => {
  it('a $feature_flag_called with a string flag and a string variant', () => {
    expect(exposureOf('$feature_flag_called', { $feature_flag: 'f', $feature_flag_response: 'test' })).toEqual({ flag: 'f', variant: 'test' });
  });

  it('nothing for another event, or a flag or variant that is not a string (never a variant of an experiment)', () => {
    expect(exposureOf('$pageview', { $feature_flag: 'f', $feature_flag_response: 'test' })).toBeNull();
    expect(exposureOf('$feature_flag_called', { $feature_flag: 'f', $feature_flag_response: true })).toBeNull();
    expect(exposureOf('$feature_flag_called', { $feature_flag: 7, $feature_flag_response: 'test' })).toBeNull();
    expect(exposureOf('$feature_flag_called', { $feature_flag: 'f' })).toBeNull();
  });
});
