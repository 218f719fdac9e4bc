import { randomUUID } from 'node:crypto';
import {
  organizationStream,
  personalApiKeyStream,
  projectStream,
  userStream,
  type Actor,
  type ProjectSettings,
  type ScopeOrAll,
} from '../../streams';
import type { AccessQueries } from '../../projections/access-queries';
import type { EventLog } from '../store/event-log';
import { handleCommandAndWait } from '../runtime/read-your-writes';
import { withNextId } from '../runtime/sequential-id';
import { notFound } from '../errors';
import { organizationDecider, personalKeyDecider, projectDecider, userDecider } from './deciders';
import { hashKey, maskKey, newPersonalKey, newProjectToken } from './tokens';

export interface AccessDeps {
  log: EventLog;
  queries: AccessQueries;
  /** Read-your-writes: resolves when the access read model has applied the position. */
  waitFor: (position: number) => Promise<void>;
}

export interface CreatedKey {
  id: string;
  key: string;
  mask: string;
  scopes: ScopeOrAll[];
}

/** Commands over organizations, users, projects and personal keys. */
export class AccessService {
  constructor(private readonly deps: AccessDeps) {}

  async createOrganization(name: string, actor: Actor): Promise<string> {
    const id = randomUUID();
    await handleCommandAndWait(this.deps.log, organizationStream(id), organizationDecider, { type: 'CreateOrganization', id, name }, { actor }, { waitFor: this.deps.waitFor });
    return id;
  }

  async createUser(input: { email: string; firstName: string; lastName: string }, actor: Actor): Promise<number> {
    const { log, queries } = this.deps;
    const uuid = randomUUID();
    return withNextId((await queries.maxUserId()) + 1, async (id) => {
      const cmd = { type: 'CreateUser' as const, id, uuid, distinctId: uuid, ...input };
      await handleCommandAndWait(log, userStream(id), userDecider, cmd, { actor }, { waitFor: this.deps.waitFor, maxAttempts: 1 });
      return id;
    });
  }

  async addMember(organizationId: string, userId: number, level: 'member' | 'admin' | 'owner', actor: Actor) {
    await handleCommandAndWait(
      this.deps.log,
      organizationStream(organizationId),
      organizationDecider,
      { type: 'AddMember', organizationId, userId, level },
      { actor },
      { waitFor: this.deps.waitFor },
    );
  }

  async createProject(organizationId: string, name: string, actor: Actor) {
    const { log, queries } = this.deps;
    if (!(await queries.organization(organizationId))) throw notFound(`Organization ${organizationId} not found.`);
    const apiToken = newProjectToken();
    const id = await withNextId((await queries.maxProjectId()) + 1, async (id) => {
      const cmd = { type: 'CreateProject' as const, id, organizationId, name, apiToken };
      await handleCommandAndWait(log, projectStream(id), projectDecider, cmd, { actor, projectId: id }, { waitFor: this.deps.waitFor, maxAttempts: 1 });
      return id;
    });
    return { id, apiToken };
  }

  /** Records the settings that differ from the current ones; read-your-writes on the access model. */
  async changeProjectSettings(id: number, changes: ProjectSettings, actor: Actor) {
    await handleCommandAndWait(
      this.deps.log,
      projectStream(id),
      projectDecider,
      { type: 'ChangeProjectSettings', id, changes },
      { actor, projectId: id },
      { waitFor: this.deps.waitFor },
    );
  }

  async createPersonalKey(
    input: { userId: number; label: string; scopes: ScopeOrAll[]; scopedProjects?: number[] | null; scopedOrganizations?: string[] | null },
    actor: Actor,
  ): Promise<CreatedKey> {
    if (!(await this.deps.queries.user(input.userId))) throw notFound(`User ${input.userId} not found.`);
    const id = randomUUID();
    const key = newPersonalKey();
    await handleCommandAndWait(
      this.deps.log,
      personalApiKeyStream(id),
      personalKeyDecider,
      {
        type: 'CreatePersonalKey',
        id,
        userId: input.userId,
        label: input.label,
        secureValue: hashKey(key),
        maskValue: maskKey(key),
        scopes: input.scopes,
        scopedProjects: input.scopedProjects ?? null,
        scopedOrganizations: input.scopedOrganizations ?? null,
      },
      { actor },
      { waitFor: this.deps.waitFor },
    );
    return { id, key, mask: maskKey(key), scopes: input.scopes };
  }

  async renameProject(id: number, name: string, actor: Actor) {
    await handleCommandAndWait(this.deps.log, projectStream(id), projectDecider, { type: 'RenameProject', id, name }, { actor, projectId: id }, { waitFor: this.deps.waitFor });
  }

  /** A new value for an existing key; the value is returned once and only its hash is recorded. */
  async rollPersonalKey(id: string, actor: Actor): Promise<{ key: string; mask: string }> {
    const key = newPersonalKey();
    await handleCommandAndWait(
      this.deps.log,
      personalApiKeyStream(id),
      personalKeyDecider,
      { type: 'RollPersonalKey', id, secureValue: hashKey(key), maskValue: maskKey(key) },
      { actor },
      { waitFor: this.deps.waitFor },
    );
    return { key, mask: maskKey(key) };
  }

  async revokePersonalKey(id: string, actor: Actor) {
    await handleCommandAndWait(this.deps.log, personalApiKeyStream(id), personalKeyDecider, { type: 'RevokePersonalKey', id }, { actor }, { waitFor: this.deps.waitFor });
  }
}
