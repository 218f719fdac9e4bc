import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../streams';

/** Who a management write is recorded as: the personal key's user (the auth plugin has resolved it). */
export const actorOf = (request: FastifyRequest): Actor => ({ type: 'user', id: request.auth!.user.id, keyId: request.auth!.key.id });
