import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

export const userStream = (id: number) => `user-${id}`;

export const UserCreated = defineEvent(
  'UserCreated',
  z.object({
    id: z.number().int().positive(),
    uuid: z.uuid(),
    distinctId: z.string().min(1),
    email: z.email(),
    firstName: z.string(),
    lastName: z.string(),
  }),
);

export const userEvents = [UserCreated] as const;
export type UserEvent = EventOf<(typeof userEvents)[number]>;
