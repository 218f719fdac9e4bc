import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../support/server';

describe('/_health shows the head of the log hash chain', () => {
  const server = startTestServer();
  afterAll(async () => (await server).close());

  it("answers the last record's position and hash, and follows appends", async () => {
    const s = await server;
    const before = (await (await s.api('/_health', { key: null })).json()) as { log_head: number; log_head_hash: string };
    const last = (await s.runtime.rawLog.readAll({ afterPosition: before.log_head - 1 })).at(-1)!;
    expect(before.log_head_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(before.log_head_hash).toBe(last.hash);
    const captured = await s.api('/capture/', {
      key: null,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: s.credentials.project_api_key, event: 'signed_up', distinct_id: 'u1' }),
    });
    expect(captured.status).toBe(200);
    const after = (await (await s.api('/_health', { key: null })).json()) as { log_head: number; log_head_hash: string };
    expect(after.log_head).toBeGreaterThan(before.log_head);
    expect(after.log_head_hash).not.toBe(before.log_head_hash);
    expect(after.log_head_hash).toBe((await s.runtime.rawLog.chainHead()).hash);
  });
});
