import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/child';
import { tempDir } from '../support/temp-dir';

// `npm start` runs the compiled build in dist/ with plain node: no TypeScript loader in the service
// process, worker threads started from their compiled entries, packaged assets found from dist/.
const linux = existsSync('/proc/self/task');

async function freePort() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const dataDir = tempDir('npm-start-build-');
let npm: ChildProcess;
let url: string;
let stderr = '';

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  npm = spawn('npm', ['start'], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PRINT_CREDENTIALS: 'false', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  npm.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let out = '';
  await new Promise<void>((resolve, reject) => {
    npm.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('listening at http')) resolve();
    });
    npm.once('exit', (code) => reject(new Error(`npm start exited ${code}: ${out}${stderr}`)));
  });
});

afterAll(async () => {
  if (npm.exitCode !== null) return;
  const exited = new Promise((resolve) => npm.once('exit', resolve));
  npm.kill('SIGTERM');
  await exited;
});

describe('npm start runs the compiled build', () => {
  it.runIf(linux)('the service process is plain node on dist/main.js', () => {
    // npm's script execs node, so npm's only child is the service itself.
    const children = readFileSync(`/proc/${npm.pid}/task/${npm.pid}/children`, 'utf8').trim().split(/\s+/);
    expect(children).toHaveLength(1);
    const argv = readFileSync(`/proc/${children[0]}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(argv[argv.length - 1]).toBe('dist/main.js');
    expect(argv.join(' ')).not.toMatch(/tsx|\.ts\b/);
  });

  it('serves the posthog-js bundle it resolves from dist/', async () => {
    const res = await fetch(`${url}/static/array.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect((await res.text()).length).toBeGreaterThan(10_000);
  });

  it('folds an event in the projection worker thread started from its compiled entry', async () => {
    const { project_api_key: token } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { project_api_key: string };
    const res = await fetch(`${url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, event: 'built', distinct_id: 'user-1', properties: { $set: { plan: 'pro' } } }),
    });
    expect(res.status).toBe(200);
    let health: { log_head: number; projections: Record<string, number> } | undefined;
    for (let waited = 0; waited < 10_000; waited += 50) {
      health = (await (await fetch(`${url}/_health`)).json()) as typeof health;
      if (health!.projections.ingestion >= health!.log_head) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(health!.projections.ingestion).toBe(health!.log_head);
    expect(stderr).toBe('');
  });
});
