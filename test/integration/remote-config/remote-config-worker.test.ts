import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../support/server';

describe('with projections in the worker thread (as npm start runs)', () => {
  it('a settings change reaches the served config as soon as the PATCH answers', async () => {
    const w = await startTestServer({ env: { PROJECTIONS_IN_WORKER: 'true' } });
    try {
      const url = `${w.url}/array/${w.credentials.project_api_key}/config`;
      expect(await (await fetch(url)).json()).toMatchObject({ heatmaps: false });
      const res = await w.api(`/api/projects/${w.credentials.project_id}/`, { method: 'PATCH', body: JSON.stringify({ heatmaps_opt_in: true }) });
      expect(res.status).toBe(200);
      expect(await (await fetch(url)).json()).toMatchObject({ heatmaps: true });
    } finally {
      await w.close();
    }
  });
});
