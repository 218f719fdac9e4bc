import { organizationEvents, personalApiKeyEvents, projectEvents, userEvents } from '../streams';
import { defineProjection } from './define-projection';
import type { TableSchema } from '../src/store/read-model-projection';

const tables: TableSchema[] = [
  { name: 'organizations', columns: { id: 'text', name: 'text', created_at: 'text' }, primaryKey: ['id'], orderBy: 'id' },
  {
    name: 'users',
    columns: { id: 'integer', uuid: 'text', distinct_id: 'text', email: 'text', first_name: 'text', last_name: 'text', created_at: 'text' },
    primaryKey: ['id'],
    orderBy: 'id',
  },
  {
    name: 'memberships',
    columns: { organization_id: 'text', user_id: 'integer', level: 'text', joined_at: 'text' },
    primaryKey: ['organization_id', 'user_id'],
    orderBy: 'organization_id, user_id',
  },
  {
    name: 'projects',
    columns: { id: 'integer', organization_id: 'text', name: 'text', api_token: 'text', created_at: 'text', settings: 'text' },
    primaryKey: ['id'],
    unique: [['api_token']],
    orderBy: 'id',
  },
  {
    name: 'personal_api_keys',
    columns: {
      id: 'text',
      user_id: 'integer',
      label: 'text',
      secure_value: 'text',
      mask_value: 'text',
      scopes: 'text',
      scoped_projects: 'text?',
      scoped_organizations: 'text?',
      created_at: 'text',
      revoked_at: 'text?',
      last_rolled_at: 'text?',
    },
    primaryKey: ['id'],
    unique: [['secure_value']],
    orderBy: 'id',
  },
];

/** Organizations, users, memberships, projects and personal keys: what authentication reads. */
export const accessProjection = defineProjection({
  name: 'access',
  version: 3,
  store: 'readmodels',
  // A project's remote config carries its token and settings.
  invalidates: ['remote-config'],
  reads: [...organizationEvents, ...projectEvents, ...userEvents, ...personalApiKeyEvents],
  tables,
  async apply(event, db) {
    const at = event.metadata.recordedAt;
    switch (event.type) {
      case 'OrganizationCreated':
        await db.run('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', event.data.id, event.data.name, at);
        return;
      case 'OrganizationMemberAdded':
        await db.run(
          `INSERT INTO memberships (organization_id, user_id, level, joined_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (organization_id, user_id) DO UPDATE SET level = excluded.level, joined_at = excluded.joined_at`,
          event.data.organizationId,
          event.data.userId,
          event.data.level,
          at,
        );
        return;
      case 'ProjectCreated':
        await db.run(
          `INSERT INTO projects (id, organization_id, name, api_token, created_at, settings) VALUES (?, ?, ?, ?, ?, '{}')`,
          event.data.id,
          event.data.organizationId,
          event.data.name,
          event.data.apiToken,
          at,
        );
        return;
      case 'ProjectSettingsChanged': {
        const row = await db.get<{ settings: string }>('SELECT settings FROM projects WHERE id = ?', event.data.id);
        if (!row) return;
        const settings = { ...JSON.parse(row.settings), ...event.data.changes };
        await db.run('UPDATE projects SET settings = ? WHERE id = ?', JSON.stringify(settings), event.data.id);
        return;
      }
      case 'ProjectRenamed':
        await db.run('UPDATE projects SET name = ? WHERE id = ?', event.data.name, event.data.id);
        return;
      case 'UserCreated': {
        const d = event.data;
        await db.run(
          'INSERT INTO users (id, uuid, distinct_id, email, first_name, last_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          d.id,
          d.uuid,
          d.distinctId,
          d.email,
          d.firstName,
          d.lastName,
          at,
        );
        return;
      }
      case 'PersonalApiKeyCreated': {
        const d = event.data;
        await db.run(
          `INSERT INTO personal_api_keys (id, user_id, label, secure_value, mask_value, scopes, scoped_projects,
             scoped_organizations, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
          d.id,
          d.userId,
          d.label,
          d.secureValue,
          d.maskValue,
          JSON.stringify(d.scopes),
          d.scopedProjects ? JSON.stringify(d.scopedProjects) : null,
          d.scopedOrganizations ? JSON.stringify(d.scopedOrganizations) : null,
          at,
        );
        return;
      }
      case 'PersonalApiKeyRevoked':
        await db.run('UPDATE personal_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', at, event.data.id);
        return;
      case 'PersonalApiKeyRolled':
        await db.run(
          'UPDATE personal_api_keys SET secure_value = ?, mask_value = ?, last_rolled_at = ? WHERE id = ?',
          event.data.secureValue,
          event.data.maskValue,
          at,
          event.data.id,
        );
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
});
