import type { RecordedEvent } from '../streams';
import type {
  OrganizationEvent,
  PersonalApiKeyEvent,
  ProjectEvent,
  UserEvent,
} from '../streams';
import type { Projection, SqlStore } from './projection';

type AccessEvent = OrganizationEvent | ProjectEvent | UserEvent | PersonalApiKeyEvent;

/** Organizations, users, memberships, projects and personal keys: what authentication reads. */
export const accessProjection: Projection = {
  name: 'access',
  version: 2,
  store: 'readmodels',
  handles: [
    'OrganizationCreated',
    'OrganizationMemberAdded',
    'ProjectCreated',
    'ProjectSettingsChanged',
    'UserCreated',
    'PersonalApiKeyCreated',
    'PersonalApiKeyRevoked',
  ],
  tables: [
    { name: 'organizations', orderBy: 'id' },
    { name: 'users', orderBy: 'id' },
    { name: 'memberships', orderBy: 'organization_id, user_id' },
    { name: 'projects', orderBy: 'id' },
    { name: 'personal_api_keys', orderBy: 'id' },
  ],
  setup(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS organizations (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, distinct_id TEXT NOT NULL,
        email TEXT NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS memberships (organization_id TEXT NOT NULL, user_id INTEGER NOT NULL,
        level TEXT NOT NULL, joined_at TEXT NOT NULL, PRIMARY KEY (organization_id, user_id));
      CREATE TABLE IF NOT EXISTS projects (id INTEGER PRIMARY KEY, organization_id TEXT NOT NULL, name TEXT NOT NULL,
        api_token TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
        settings TEXT NOT NULL DEFAULT '{}');
      CREATE TABLE IF NOT EXISTS personal_api_keys (id TEXT PRIMARY KEY, user_id INTEGER NOT NULL, label TEXT NOT NULL,
        secure_value TEXT NOT NULL UNIQUE, mask_value TEXT NOT NULL, scopes TEXT NOT NULL, scoped_projects TEXT,
        scoped_organizations TEXT, created_at TEXT NOT NULL, revoked_at TEXT);
    `);
  },
  apply(recorded: RecordedEvent, db: SqlStore) {
    const at = recorded.metadata.recordedAt;
    const event = recorded as unknown as AccessEvent;
    switch (event.type) {
      case 'OrganizationCreated':
        db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(event.data.id, event.data.name, at);
        return;
      case 'OrganizationMemberAdded':
        db.prepare('INSERT OR REPLACE INTO memberships (organization_id, user_id, level, joined_at) VALUES (?, ?, ?, ?)').run(
          event.data.organizationId,
          event.data.userId,
          event.data.level,
          at,
        );
        return;
      case 'ProjectCreated':
        db.prepare('INSERT INTO projects (id, organization_id, name, api_token, created_at) VALUES (?, ?, ?, ?, ?)').run(
          event.data.id,
          event.data.organizationId,
          event.data.name,
          event.data.apiToken,
          at,
        );
        return;
      case 'ProjectSettingsChanged': {
        const row = db.prepare('SELECT settings FROM projects WHERE id = ?').get(event.data.id) as { settings: string } | undefined;
        if (!row) return;
        const settings = { ...JSON.parse(row.settings), ...event.data.changes };
        db.prepare('UPDATE projects SET settings = ? WHERE id = ?').run(JSON.stringify(settings), event.data.id);
        return;
      }
      case 'UserCreated': {
        const d = event.data;
        db.prepare(
          'INSERT INTO users (id, uuid, distinct_id, email, first_name, last_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ).run(d.id, d.uuid, d.distinctId, d.email, d.firstName, d.lastName, at);
        return;
      }
      case 'PersonalApiKeyCreated': {
        const d = event.data;
        db.prepare(
          `INSERT INTO personal_api_keys (id, user_id, label, secure_value, mask_value, scopes, scoped_projects,
             scoped_organizations, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
        ).run(
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
        db.prepare('UPDATE personal_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, event.data.id);
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
