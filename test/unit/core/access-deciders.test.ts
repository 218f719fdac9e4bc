import { describe, it } from 'vitest';
import { organizationDecider, personalKeyDecider, projectDecider } from '../../../src/access';
import { spec } from '../../support/decider-spec';

const org = '6f1f1c1e-8a55-4c1b-9a53-111111111111';

describe('access deciders', () => {
  it('organization: create once, members once', () => {
    spec(organizationDecider).given([]).when({ type: 'CreateOrganization', id: org, name: 'Acme' }).then([
      { type: 'OrganizationCreated', data: { id: org, name: 'Acme' } },
    ]);
    spec(organizationDecider)
      .given([{ type: 'OrganizationCreated', data: { id: org, name: 'Acme' } }])
      .when({ type: 'CreateOrganization', id: org, name: 'Acme' })
      .thenThrows('conflict');
    spec(organizationDecider).given([]).when({ type: 'AddMember', organizationId: org, userId: 1, level: 'owner' }).thenThrows('not_found');
    spec(organizationDecider)
      .given([
        { type: 'OrganizationCreated', data: { id: org, name: 'Acme' } },
        { type: 'OrganizationMemberAdded', data: { organizationId: org, userId: 1, level: 'owner' } },
      ])
      .when({ type: 'AddMember', organizationId: org, userId: 1, level: 'member' })
      .thenNothing();
  });

  it('project: blank names and duplicates are refused', () => {
    const cmd = { type: 'CreateProject' as const, id: 1, organizationId: org, name: ' ', apiToken: 'phc_x' };
    spec(projectDecider).given([]).when(cmd).thenThrows('validation', /blank/);
    spec(projectDecider)
      .given([{ type: 'ProjectCreated', data: { id: 1, organizationId: org, name: 'P', apiToken: 'phc_x' } }])
      .when({ ...cmd, name: 'P' })
      .thenThrows('conflict');
  });

  it('project settings: only what differs is recorded; an unknown project is not found', () => {
    const created = { type: 'ProjectCreated' as const, data: { id: 1, organizationId: org, name: 'P', apiToken: 'phc_x' } };
    const change = (changes: object) => ({ type: 'ChangeProjectSettings' as const, id: 1, changes });
    spec(projectDecider).given([]).when(change({ heatmaps_opt_in: true })).thenThrows('not_found');
    spec(projectDecider)
      .given([created, { type: 'ProjectSettingsChanged', data: { id: 1, changes: { heatmaps_opt_in: true } } }])
      .when(change({ heatmaps_opt_in: true, autocapture_opt_out: true }))
      .then([{ type: 'ProjectSettingsChanged', data: { id: 1, changes: { autocapture_opt_out: true } } }]);
    spec(projectDecider)
      .given([created, { type: 'ProjectSettingsChanged', data: { id: 1, changes: { heatmaps_opt_in: true } } }])
      .when(change({ heatmaps_opt_in: true }))
      .thenNothing();
  });

  it('personal key: revoke is idempotent, unknown key is not found', () => {
    const created = {
      type: 'PersonalApiKeyCreated' as const,
      data: { id: 'k', userId: 1, label: 'l', secureValue: 'sha256$' + '0'.repeat(64), maskValue: 'phx_...0000', scopes: ['*' as const], scopedProjects: null, scopedOrganizations: null },
    };
    spec(personalKeyDecider).given([]).when({ type: 'RevokePersonalKey', id: 'k' }).thenThrows('not_found');
    spec(personalKeyDecider).given([created]).when({ type: 'RevokePersonalKey', id: 'k' }).then([{ type: 'PersonalApiKeyRevoked', data: { id: 'k' } }]);
    spec(personalKeyDecider)
      .given([created, { type: 'PersonalApiKeyRevoked', data: { id: 'k' } }])
      .when({ type: 'RevokePersonalKey', id: 'k' })
      .thenNothing();
  });

  it('project rename: trimmed, blank refused, the same name records nothing, an unknown project is not found', () => {
    const created = { type: 'ProjectCreated' as const, data: { id: 1, organizationId: org, name: 'P', apiToken: 'phc_x' } };
    const rename = (name: string) => ({ type: 'RenameProject' as const, id: 1, name });
    spec(projectDecider).given([]).when(rename('Q')).thenThrows('not_found');
    spec(projectDecider).given([created]).when(rename(' Q ')).then([{ type: 'ProjectRenamed', data: { id: 1, name: 'Q' } }]);
    spec(projectDecider).given([created]).when(rename('  ')).thenThrows('validation', /blank/);
    spec(projectDecider).given([created]).when(rename('x'.repeat(201))).thenThrows('validation');
    spec(projectDecider).given([created, { type: 'ProjectRenamed', data: { id: 1, name: 'Q' } }]).when(rename('Q')).thenNothing();
  });

  it('personal key roll: a live key gets a new value; an unknown or revoked key is not found', () => {
    const created = {
      type: 'PersonalApiKeyCreated' as const,
      data: { id: 'k', userId: 1, label: 'l', secureValue: `sha256$${'a'.repeat(64)}`, maskValue: 'phx_...aaaa', scopes: ['*' as const], scopedProjects: null, scopedOrganizations: null },
    };
    const roll = { type: 'RollPersonalKey' as const, id: 'k', secureValue: `sha256$${'b'.repeat(64)}`, maskValue: 'phx_...bbbb' };
    spec(personalKeyDecider).given([]).when(roll).thenThrows('not_found');
    spec(personalKeyDecider).given([created]).when(roll).then([{ type: 'PersonalApiKeyRolled', data: { id: 'k', secureValue: roll.secureValue, maskValue: roll.maskValue } }]);
    spec(personalKeyDecider).given([created, { type: 'PersonalApiKeyRevoked', data: { id: 'k' } }]).when(roll).thenThrows('not_found');
  });
});
