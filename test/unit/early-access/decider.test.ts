import { describe, it } from 'vitest';
import type { EarlyAccessFeatureEvent, EarlyAccessFields } from '../../../streams';
import { earlyAccessDecider } from '../../../src/early-access/decider';
import { spec } from '../../support/decider-spec';

const featureId = '0195d3a0-0000-7000-8000-000000000002';
const projectId = 1;
const fields: EarlyAccessFields = { name: 'Dark mode', description: '', stage: 'beta', documentation_url: '', payload: {}, assignee: null };
const create = { type: 'CreateEarlyAccessFeature' as const, featureId, projectId, fields, flagKey: 'dark-mode', flagCreated: false, createdBy: null };
const created: EarlyAccessFeatureEvent = { type: 'EarlyAccessFeatureCreated', data: { featureId, projectId, fields, flagKey: 'dark-mode', flagCreated: false, createdBy: null } };

describe('early access feature decider', () => {
  it('creates a feature once, with the key of the flag it owns', () => {
    spec(earlyAccessDecider).given([]).when(create).then([created]);
    spec(earlyAccessDecider).given([created]).when(create).thenThrows('conflict');
  });

  it('records a stage change, and nothing when the stage is already that', () => {
    spec(earlyAccessDecider)
      .given([created])
      .when({ type: 'UpdateEarlyAccessFeature', changes: { stage: 'general-availability', name: 'Dark mode' } })
      .then([{ type: 'EarlyAccessFeatureUpdated', data: { featureId, projectId, changes: { stage: 'general-availability' } } }]);
    spec(earlyAccessDecider).given([created]).when({ type: 'UpdateEarlyAccessFeature', changes: { stage: 'beta' } }).thenNothing();
  });

  it('an abandoned feature (its flag never came) takes no further command', () => {
    spec(earlyAccessDecider)
      .given([created])
      .when({ type: 'AbandonEarlyAccessFeature', reason: 'key taken' })
      .then([{ type: 'EarlyAccessFeatureAbandoned', data: { featureId, projectId, reason: 'key taken' } }]);
    const abandoned: EarlyAccessFeatureEvent = { type: 'EarlyAccessFeatureAbandoned', data: { featureId, projectId, reason: 'key taken' } };
    spec(earlyAccessDecider).given([created, abandoned]).when({ type: 'UpdateEarlyAccessFeature', changes: { stage: 'alpha' } }).thenThrows('not_found');
    spec(earlyAccessDecider).given([created, abandoned]).when({ type: 'DeleteEarlyAccessFeature' }).thenThrows('not_found');
  });

  it('deletes once', () => {
    spec(earlyAccessDecider).given([created]).when({ type: 'DeleteEarlyAccessFeature' }).then([{ type: 'EarlyAccessFeatureDeleted', data: { featureId, projectId } }]);
    const deleted: EarlyAccessFeatureEvent = { type: 'EarlyAccessFeatureDeleted', data: { featureId, projectId } };
    spec(earlyAccessDecider).given([created, deleted]).when({ type: 'DeleteEarlyAccessFeature' }).thenThrows('not_found');
  });
});
