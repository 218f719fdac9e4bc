import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

export const organizationStream = (id: string) => `organization-${id}`;

export const OrganizationCreated = defineEvent(
  'OrganizationCreated',
  z.object({ id: z.uuid(), name: z.string().min(1).max(200) }),
);

export const OrganizationMemberAdded = defineEvent(
  'OrganizationMemberAdded',
  z.object({ organizationId: z.uuid(), userId: z.number().int().positive(), level: z.enum(['member', 'admin', 'owner']) }),
);

export const organizationEvents = [OrganizationCreated, OrganizationMemberAdded] as const;
export type OrganizationEvent = EventOf<(typeof organizationEvents)[number]>;
