import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/child';
import { tempDir } from '../support/temp-dir';

async function freePort() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
};

/** Whether the group empties within a bounded wait (polling: there is no event for a reaped orphan). */
async function groupGone(pgid: number, withinMs = 10_000) {
  for (const end = Date.now() + withinMs; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (!groupAlive(pgid)) return true;
  }
  return !groupAlive(pgid);
}

describe('npm start stops the server on a signal sent to npm', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the npm process frees the port and leaves no process behind`, async () => {
      const port = await freePort();
      // Its own process group: what is left of it afterwards is what npm start left behind.
      const npm = spawn('npm', ['start'], {
        cwd: repoRoot,
        detached: true,
        env: { ...process.env, DATA_DIR: tempDir('npm-start-'), PORT: String(port), PRINT_CREDENTIALS: 'false', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      // stdout ends when every process holding it (npm, and the node server it started) has exited.
      const stdoutEnded = new Promise<void>((resolve) => npm.stdout.on('end', resolve));
      npm.stdout.resume();
      await new Promise<void>((resolve, reject) => {
        npm.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('listening at http')) resolve();
        });
        npm.once('exit', (code) => reject(new Error(`npm exited ${code}: ${out}`)));
      });
      expect(await canListen(port)).toBe(false);
      try {
        const npmExited = new Promise((resolve) => npm.once('exit', resolve));
        npm.kill(signal);
        await npmExited;
        // An orphaned server would hold stdout open: bounded wait, so the failure is an assertion.
        const ended = await Promise.race([stdoutEnded.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000))]);
        expect(ended).toBe(true);
        expect(out).toContain('shutting down');
        // The server may still be a zombie for a moment (npm, its parent, is gone, so init reaps it).
        expect(await groupGone(npm.pid!)).toBe(true);
        expect(await canListen(port)).toBe(true);
      } finally {
        if (groupAlive(npm.pid!)) process.kill(-npm.pid!, 'SIGKILL');
      }
    }, 60_000);
  }
});
