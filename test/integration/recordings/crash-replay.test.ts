import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRuntime } from '../../../src/app';
import { recordingStream, snapshotLines, type RecordingSnapshotsData } from '../../../streams';
import { kill9, runBuilt } from '../../support/child';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp-dir';
import { rrweb, sendSnapshots, snapshotEvent } from './snapshots';

describe('session recordings: durability and replay', () => {
  it('every /s/ batch answered {"status":1} survives SIGKILL once; replay rebuilds the recordings read model identically', async () => {
    const dir = tempDir('recordings-crash-');
    const server = runBuilt({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info', PRINT_CREDENTIALS: 'false' });
    const listening = await server.waitForLine((l) => l.includes('Server listening'));
    const url = /listening at (http:\/\/[^"\s]+)/.exec(listening)![1];
    const { project_api_key: token, project_id: projectId, personal_api_key: key } = (await import(join(dir, 'credentials.json'), { with: { type: 'json' } })).default;
    const optIn = await fetch(`${url}/api/projects/${projectId}/`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_recording_opt_in: true }),
    });
    expect(optIn.status).toBe(200);

    const acked: string[] = [];
    let stop = false;
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        // Each batch carries a tag (an rrweb custom event) so the log can be searched for it.
        const tag = randomUUID();
        const t = Date.UTC(2026, 0, 1) + i * 1000;
        const data = [rrweb.full(t), rrweb.click(t + 10), { type: 5, timestamp: t + 20, data: { tag: 'crash', payload: { tag } } }];
        const batch = [snapshotEvent(token, { sessionId: `crash-${n}-${i % 3}`, windowId: `w-${n}`, distinctId: `crash-${n}`, data })];
        try {
          const res = await sendSnapshots(url, batch, 'gzip-js');
          if (res.status === 200 && ((await res.json()) as { status: number }).status === 1) acked.push(tag);
        } catch {
          return; // the server is gone
        }
      }
    };
    const clients = [0, 1, 2].map(client);
    while (acked.length < 60) await new Promise((r) => setTimeout(r, 20));
    kill9(server.child);
    await server.exited;
    stop = true;
    await Promise.all(clients);

    const runtime = openRuntime({ dataDir: dir });
    await runtime.runner.catchUp();
    const records = await runtime.log.readStream(recordingStream(projectId));
    const tags = records.flatMap((r) =>
      [...snapshotLines(r.data as RecordingSnapshotsData)].filter(([, e]) => e.type === 5).map(([, e]) => ((e.data as { payload: { tag: string } }).payload.tag)),
    );
    expect(new Set(tags).size).toBe(tags.length);
    expect(acked.filter((t) => !tags.includes(t))).toEqual([]);
    const folded = runtime.stores!.readmodels.prepare('SELECT sum(snapshot_count) AS n, sum(chunk_count) AS c FROM session_recordings').get() as { n: number; c: number };
    expect(folded).toEqual({ n: tags.length * 3, c: records.length });
    await runtime.close();

    const verified = cli(dir, ['verify', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout);
    expect(report.ok).toBe(true);
    const row = report.rows.find((r: { projection: string }) => r.projection === 'recordings');
    expect(row).toBeDefined();
    const replayed = cli(dir, ['replay', '--json']);
    expect(replayed.code, replayed.stderr).toBe(0);
    const again = JSON.parse(replayed.stdout).digests.find((d: { projection: string }) => d.projection === 'recordings');
    expect(again.digest).toBe(row.live);
  });
});
