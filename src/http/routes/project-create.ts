import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../actor';
import { forbidden } from '../errors';
import { ProjectBody, projectBody } from './projects';
import type { Parts } from '../runtime-parts';

const CreateProject = z
  .object({ name: z.string().trim().min(1, 'This field may not be blank.').max(200) })
  .meta({ examples: [{ name: 'Marketing site' }] });

/** PostHog's `POST /api/projects/`: a new project in the key's current organization. */
export const projectCreateRoutes: FastifyPluginAsyncZod<Parts<'access', 'access'>> = async (app, parts) => {
  app.post(
    '/api/projects/',
    {
      config: { scope: 'project:write' },
      schema: { summary: "Creates a project in the key's current organization.", body: CreateProject, response: { 201: ProjectBody } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      // A key limited to some projects could not reach the project it made: it may not make one.
      if (auth.projectFilter) throw forbidden('A key limited to projects cannot create projects.');
      const organization = auth.organizationIds[0];
      if (!organization) throw forbidden('This key belongs to no organization.');
      const { id } = await parts.access.createProject(organization, request.body.name, actorOf(request));
      return reply.status(201).send(projectBody((await parts.queries.access.project(id))!));
    },
  );
};
