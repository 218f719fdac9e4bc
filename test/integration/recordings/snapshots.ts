import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { startTestServer, type TestServer } from '../../support/server';

/** rrweb events as posthog-js's recorder emits them (EventType: 2 full, 3 incremental, 4 meta, 6 plugin). */
export const rrweb = {
  meta: (t: number, href: string) => ({ type: 4, timestamp: t, data: { href, width: 1280, height: 720 } }),
  full: (t: number) => ({
    type: 2,
    timestamp: t,
    data: {
      node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [{ type: 3, id: 3, textContent: 'héllo ✓' }] }] },
      initialOffset: { left: 0, top: 0 },
    },
  }),
  click: (t: number) => ({ type: 3, timestamp: t, data: { source: 2, type: 2, id: 3, x: 10, y: 20 } }),
  move: (t: number) => ({ type: 3, timestamp: t, data: { source: 1, positions: [{ x: 1, y: 2, id: 3, timeOffset: 0 }] } }),
  input: (t: number) => ({ type: 3, timestamp: t, data: { source: 5, text: 'a', isChecked: false, id: 3 } }),
  consoleError: (t: number) => ({ type: 6, timestamp: t, data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['"boom"'] } } }),
};

export type Rrweb = Record<string, unknown>;

/** One `$snapshot` event as posthog-js 1.449's lazy-loaded recorder builds it. */
export function snapshotEvent(token: string, opts: { sessionId: string; windowId?: string; distinctId: string; data: Rrweb[] }) {
  const bytes = JSON.stringify(opts.data).length;
  return {
    uuid: randomUUID(),
    event: '$snapshot',
    properties: {
      $snapshot_bytes: bytes,
      $snapshot_data: opts.data,
      $session_id: opts.sessionId,
      ...(opts.windowId === undefined ? {} : { $window_id: opts.windowId }),
      $lib: 'web',
      $lib_version: '1.449.0',
      $snapshot_host: 'https://app.example',
      distinct_id: opts.distinctId,
      token,
    },
    timestamp: new Date().toISOString(),
  };
}

export type Encoding = 'gzip-js' | 'gzip-js-query' | 'base64' | 'lz64' | 'none';

/** The request posthog-js (or an older one) sends for a batch, per compression. */
export function snapshotRequest(batch: unknown[], encoding: Encoding): { path: string; init: RequestInit } {
  const payload = JSON.stringify(batch.map((e) => ({ ...(e as object), sent_at: new Date().toISOString() })));
  const now = Date.now();
  switch (encoding) {
    case 'gzip-js':
      // Current posthog-js: gzip bytes, text/plain, no compression hint (the server sniffs the magic).
      return { path: `/s/?ver=1.449.0&_=${now}`, init: { method: 'POST', headers: { 'content-type': 'text/plain' }, body: gzipSync(payload) } };
    case 'gzip-js-query':
      return { path: `/s/?compression=gzip-js&ver=1.449.0&_=${now}`, init: { method: 'POST', headers: { 'content-type': 'text/plain' }, body: gzipSync(payload) } };
    case 'base64':
      return {
        path: `/s/?compression=base64&ver=1.449.0&_=${now}`,
        init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `data=${encodeURIComponent(Buffer.from(payload).toString('base64'))}` },
      };
    case 'lz64':
      return {
        path: `/s/?compression=lz64&ver=1.100.0&_=${now}`,
        init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `data=${encodeURIComponent(LZString.compressToBase64(payload))}` },
      };
    case 'none':
      return { path: `/s/?ver=1.449.0&_=${now}`, init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload } };
  }
}

export async function sendSnapshots(url: string, batch: unknown[], encoding: Encoding = 'gzip-js'): Promise<Response> {
  const { path, init } = snapshotRequest(batch, encoding);
  return fetch(url + path, { ...init, headers: { ...(init.headers as Record<string, string>), origin: 'https://app.example' } });
}

/** Projects do not record until they opt in (`session_recording_opt_in`, off by default): `/s/` stores nothing before. */
export async function optInToRecordings(s: TestServer, on = true): Promise<void> {
  const res = await s.api(`/api/projects/${s.credentials.project_id}/`, { method: 'PATCH', body: JSON.stringify({ session_recording_opt_in: on }) });
  if (res.status !== 200) throw new Error(`opting in to recordings: ${res.status} ${await res.text()}`);
}

/** A test server whose project records sessions, with its project key and its recordings API path. */
export async function startRecordingServer(): Promise<{ s: TestServer; token: string; base: string }> {
  const s = await startTestServer();
  await optInToRecordings(s);
  return { s, token: s.credentials.project_api_key, base: `/api/projects/${s.credentials.project_id}/session_recordings` };
}
