import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partsOf } from '../../../src/http/runtime-parts';
import { startTestServer, type TestServer } from '../../support/server';

// Issue 22, item 3: routes reach the runtime through their own context's plugin options, never a
// whole-runtime decoration on the fastify instance.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('route contexts', () => {
  it('hang nothing of the runtime or the configuration on the fastify instance', () => {
    expect(s.app.hasDecorator('runtime')).toBe(false);
    expect(s.app.hasDecorator('config')).toBe(false);
  });

  it('are handed the members they name and no others', () => {
    const parts = partsOf(s.runtime, ['flags', 'projectIdForToken'], ['access']);
    expect(Object.keys(parts).sort()).toEqual(['flags', 'projectIdForToken', 'queries']);
    expect(Object.keys(parts.queries)).toEqual(['access']);
    expect(parts.flags).toBe(s.runtime.flags);
    expect(parts.queries.access).toBe(s.runtime.queries.access);
  });
});
