import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { npmStartArgs, repoRoot } from '../../support/child';
import { tempDir } from '../../support/temp-dir';

const listening = (server: Server, port = 0) =>
  new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
async function freePort() {
  const server = createServer();
  const port = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the server as `npm start` does, with stdout wherever the test says. */
function start(env: Record<string, string>, stdout: 'pipe' | number = 'pipe') {
  const child = spawn(process.execPath, npmStartArgs(), {
    cwd: repoRoot,
    env: { ...process.env, PRINT_CREDENTIALS: 'false', LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', stdout, 'pipe'],
  });
  let stderr = '';
  const stderrSeen: ((text: string) => void)[] = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const f of stderrSeen) f(stderr);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stderrMatching = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      if (re.test(stderr)) return resolve(stderr);
      stderrSeen.push((text) => re.test(text) && resolve(text));
      void exited.then((code) => reject(new Error(`exited ${code} before ${re}: ${stderr}`)));
    });
  return { child, exited, stderr: () => stderr, stderrMatching };
}

async function expectOneLineExit2(env: Record<string, string>, pattern: RegExp) {
  const server = start({ PORT: String(await freePort()), ...env });
  expect(await server.exited).toBe(2);
  const lines = server.stderr().trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(server.stderr()).not.toMatch(/\n\s+at /);
}

describe('start-up failures: one line on stderr, exit 2', () => {
  it('DATA_DIR that is a file', async () => {
    const file = join(tempDir('start-'), 'a-file');
    writeFileSync(file, 'x');
    await expectOneLineExit2({ DATA_DIR: file }, /^DATA_DIR .*a-file is not a directory$/);
  });

  it('DATA_DIR that cannot be created (a parent is a file)', async () => {
    const file = join(tempDir('start-'), 'a-file');
    writeFileSync(file, 'x');
    await expectOneLineExit2({ DATA_DIR: join(file, 'data') }, /^DATA_DIR .* cannot be created or written: a parent is not a directory$/);
  });

  it('a port already in use', async () => {
    const blocker = createServer();
    const port = await listening(blocker);
    try {
      await expectOneLineExit2({ DATA_DIR: tempDir('start-'), PORT: String(port) }, new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use$`));
    } finally {
      blocker.close();
    }
  });

  it('a data directory whose log is gone but whose install remains is not bootstrapped over', async () => {
    const dir = tempDir('start-');
    // Private, as the service leaves its files: the start's tightening has nothing to say here.
    writeFileSync(join(dir, 'readmodels.sqlite'), '', { mode: 0o600 });
    writeFileSync(join(dir, 'credentials.json'), '{"personal_api_key":"old"}', { mode: 0o600 });
    mkdirSync(join(dir, 'imports'), { mode: 0o700 });
    await expectOneLineExit2({ DATA_DIR: dir }, /^DATA_DIR .* has no event log \(events\.sqlite\) but holds files of an install \(credentials\.json, imports, readmodels\.sqlite\): refusing/);
    expect(existsSync(join(dir, 'events.sqlite'))).toBe(false);
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toBe('{"personal_api_key":"old"}');
  });

  it('a log file that is not a database', async () => {
    const dir = tempDir('start-');
    writeFileSync(join(dir, 'events.sqlite'), 'this is not an SQLite database, just text long enough to have a header'.repeat(20), { mode: 0o600 });
    await expectOneLineExit2({ DATA_DIR: dir }, /^cannot open the data in DATA_DIR .*: file is not a database \(SQLITE_NOTADB\)$/);
  });
});

describe('a failing log output never kills the process', () => {
  it('keeps serving with stdout on a full device (ENOSPC on every log line)', async () => {
    const port = await freePort();
    const full = openSync('/dev/full', 'w');
    const dataDir = tempDir('start-');
    const server = start({ DATA_DIR: dataDir, PORT: String(port) }, full);
    closeSync(full);
    try {
      // "Server listening" is the first log line: its failure is reported once, after listen.
      await server.stderrMatching(/log output failed \(ENOSPC\)/);
      expect((await fetch(`http://127.0.0.1:${port}/_health`)).status).toBe(200);
      const { project_api_key } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
      const res = await fetch(`http://127.0.0.1:${port}/capture/`, { method: 'POST', body: JSON.stringify({ api_key: project_api_key, event: 'e', distinct_id: 'd' }) });
      expect(res.status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  it('closes cleanly when its stdout pipe was closed by the reader (EPIPE)', async () => {
    const port = await freePort();
    const server = start({ DATA_DIR: tempDir('start-'), PORT: String(port) });
    await new Promise<void>((resolve) => server.child.stdout!.once('data', () => resolve()));
    server.child.stdout!.destroy();
    expect((await fetch(`http://127.0.0.1:${port}/_health`)).status).toBe(200);
    // Shutting down logs a line into the closed pipe.
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});

describe('a log removed under a running server', () => {
  it('refuses the next capture with 503, and the next start refuses to bootstrap over the rest', async () => {
    const dataDir = tempDir('start-');
    const port = await freePort();
    const server = start({ DATA_DIR: dataDir, PORT: String(port) });
    await new Promise<void>((resolve) => {
      let out = '';
      server.child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()).includes('listening at') && resolve());
    });
    const { project_api_key } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const capture = () => fetch(`http://127.0.0.1:${port}/capture/`, { method: 'POST', body: JSON.stringify({ api_key: project_api_key, event: 'e', distinct_id: 'd' }) });
    expect((await capture()).status).toBe(200);
    unlinkSync(join(dataDir, 'events.sqlite'));
    expect((await capture()).status).toBe(503);
    expect((await fetch(`http://127.0.0.1:${port}/_health`)).status).toBe(503);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await expectOneLineExit2({ DATA_DIR: dataDir }, /has no event log \(events\.sqlite\) but holds files of an install/);
    expect(JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')).project_api_key).toBe(project_api_key);
  });
});
