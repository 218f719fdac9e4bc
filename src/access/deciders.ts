import {
  organizationEvents,
  personalApiKeyEvents,
  projectEvents,
  userEvents,
  type OrganizationEvent,
  type PersonalApiKeyEvent,
  type ProjectEvent,
  type ProjectSettings,
  type Scope,
  type UserEvent,
} from '../../streams';
import { conflict, notFound, validationError } from '../errors';
import type { Decider } from '../runtime/decider';

type Exists = { exists: boolean };
const exists = (): Exists => ({ exists: false });

export type OrganizationCommand =
  | { type: 'CreateOrganization'; id: string; name: string }
  | { type: 'AddMember'; organizationId: string; userId: number; level: 'member' | 'admin' | 'owner' };

export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, Exists & { members: number[] }> = {
  events: organizationEvents,
  initialState: () => ({ exists: false, members: [] }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'OrganizationCreated':
        return { ...s, exists: true };
      case 'OrganizationMemberAdded':
        return { ...s, members: [...s.members, e.data.userId] };
    }
  },
  decide: (c, s) => {
    switch (c.type) {
      case 'CreateOrganization':
        if (s.exists) throw conflict(`organization ${c.id} already exists`);
        if (!c.name.trim()) throw validationError('This field may not be blank.', 'name');
        return [{ type: 'OrganizationCreated', data: { id: c.id, name: c.name } }];
      case 'AddMember':
        if (!s.exists) throw notFound();
        if (s.members.includes(c.userId)) return [];
        return [{ type: 'OrganizationMemberAdded', data: { organizationId: c.organizationId, userId: c.userId, level: c.level } }];
    }
  },
};

export type ProjectCommand =
  | { type: 'CreateProject'; id: number; organizationId: string; name: string; apiToken: string }
  | { type: 'ChangeProjectSettings'; id: number; changes: ProjectSettings }
  | { type: 'RenameProject'; id: number; name: string };

export const projectDecider: Decider<ProjectCommand, ProjectEvent, Exists & { settings: ProjectSettings; name: string }> = {
  events: projectEvents,
  initialState: () => ({ exists: false, settings: {}, name: '' }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'ProjectCreated':
        return { ...s, exists: true, name: e.data.name };
      case 'ProjectRenamed':
        return { ...s, name: e.data.name };
      case 'ProjectSettingsChanged':
        return { ...s, settings: { ...s.settings, ...e.data.changes } };
    }
  },
  decide: (c, s) => {
    if (c.type === 'RenameProject') {
      if (!s.exists) throw notFound();
      const name = c.name.trim();
      if (!name) throw validationError('This field may not be blank.', 'name');
      if (name.length > 200) throw validationError('Ensure this field has no more than 200 characters.', 'name');
      return name === s.name ? [] : [{ type: 'ProjectRenamed', data: { id: c.id, name } }];
    }
    if (c.type === 'ChangeProjectSettings') {
      if (!s.exists) throw notFound();
      // Only what differs is recorded: a PATCH repeating the current values appends nothing.
      const changes = Object.fromEntries(
        Object.entries(c.changes).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(s.settings[k as keyof ProjectSettings])),
      ) as ProjectSettings;
      return Object.keys(changes).length ? [{ type: 'ProjectSettingsChanged', data: { id: c.id, changes } }] : [];
    }
    if (s.exists) throw conflict(`project ${c.id} already exists`);
    if (!c.name.trim()) throw validationError('This field may not be blank.', 'name');
    return [{ type: 'ProjectCreated', data: { id: c.id, organizationId: c.organizationId, name: c.name, apiToken: c.apiToken } }];
  },
};

export type UserCommand = {
  type: 'CreateUser';
  id: number;
  uuid: string;
  distinctId: string;
  email: string;
  firstName: string;
  lastName: string;
};

export const userDecider: Decider<UserCommand, UserEvent, Exists> = {
  events: userEvents,
  initialState: exists,
  evolve: () => ({ exists: true }),
  decide: (c, s) => {
    if (s.exists) throw conflict(`user ${c.id} already exists`);
    const { type: _type, ...data } = c;
    return [{ type: 'UserCreated', data }];
  },
};

export type PersonalKeyCommand =
  | {
      type: 'CreatePersonalKey';
      id: string;
      userId: number;
      label: string;
      secureValue: string;
      maskValue: string;
      scopes: ('*' | Scope)[];
      scopedProjects: number[] | null;
      scopedOrganizations: string[] | null;
    }
  | { type: 'RevokePersonalKey'; id: string }
  | { type: 'RollPersonalKey'; id: string; secureValue: string; maskValue: string };

export const personalKeyDecider: Decider<PersonalKeyCommand, PersonalApiKeyEvent, Exists & { revoked: boolean }> = {
  events: personalApiKeyEvents,
  initialState: () => ({ exists: false, revoked: false }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'PersonalApiKeyCreated':
        return { ...s, exists: true };
      case 'PersonalApiKeyRevoked':
        return { ...s, revoked: true };
      case 'PersonalApiKeyRolled':
        return s;
    }
  },
  decide: (c, s) => {
    switch (c.type) {
      case 'CreatePersonalKey': {
        if (s.exists) throw conflict(`personal API key ${c.id} already exists`);
        if (c.scopes.length === 0) throw validationError('At least one scope is required.', 'scopes');
        const { type: _type, ...data } = c;
        return [{ type: 'PersonalApiKeyCreated', data }];
      }
      case 'RevokePersonalKey':
        if (!s.exists) throw notFound(`No personal API key ${c.id}.`);
        return s.revoked ? [] : [{ type: 'PersonalApiKeyRevoked', data: { id: c.id } }];
      case 'RollPersonalKey':
        // A revoked key stays revoked: rolling it would bring it back to life under a new value.
        if (!s.exists || s.revoked) throw notFound(`No personal API key ${c.id}.`);
        return [{ type: 'PersonalApiKeyRolled', data: { id: c.id, secureValue: c.secureValue, maskValue: c.maskValue } }];
    }
  },
};
