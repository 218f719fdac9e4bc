import fp from 'fastify-plugin';
import type { Config } from '../config';
import type { Runtime } from '../app';

declare module 'fastify' {
  interface FastifyInstance {
    runtime: Runtime;
    config: Config;
  }
}

/** Shares the runtime (log, runner, read models, services) and config with every route plugin. */
export const runtimePlugin = fp<{ runtime: Runtime; config: Config }>(
  async (app, opts) => {
    app.decorate('runtime', opts.runtime);
    app.decorate('config', opts.config);
  },
  { name: 'runtime' },
);
