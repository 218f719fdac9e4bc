import { describe, it } from 'vitest';
import type { ActionEvent, ActionFields } from '../../../streams';
import { actionDecider } from '../../../src/actions/decider';
import { spec } from '../../support/decider-spec';

const ids = { actionId: 4, projectId: 1 };
const fields: ActionFields = { name: 'Signed up', description: '', tags: [], steps: [], post_to_slack: false, slack_message_format: '', pinned_at: null };
const created: ActionEvent = { type: 'ActionCreated', data: { ...ids, fields, createdBy: 2 } };
const deleted: ActionEvent = { type: 'ActionDeleted', data: ids };

describe('action decider', () => {
  it('creates once per id', () => {
    spec(actionDecider).given([]).when({ type: 'CreateAction', ...ids, fields, createdBy: 2 }).then([created]);
    spec(actionDecider).given([created]).when({ type: 'CreateAction', ...ids, fields, createdBy: 2 }).thenThrows('conflict');
  });

  it('records only changed fields; soft-deletes and restores once', () => {
    spec(actionDecider)
      .given([created])
      .when({ type: 'UpdateAction', changes: { name: 'Signed up', description: 'x' }, deleted: true })
      .then([{ type: 'ActionUpdated', data: { ...ids, changes: { description: 'x' } } }, deleted]);
    spec(actionDecider).given([created, deleted]).when({ type: 'UpdateAction', changes: {}, deleted: true }).thenNothing();
    spec(actionDecider).given([created, deleted]).when({ type: 'UpdateAction', changes: {}, deleted: false }).then([{ type: 'ActionRestored', data: ids }]);
    spec(actionDecider).given([created]).when({ type: 'UpdateAction', changes: {}, deleted: false }).thenNothing();
  });

  it('an action that was never created is not found', () => {
    spec(actionDecider).given([]).when({ type: 'UpdateAction', changes: { name: 'x' } }).thenThrows('not_found');
  });
});
