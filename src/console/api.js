// The personal key lives in this tab only (sessionStorage): never in a URL, a cookie or a log line.
const STORAGE = 'eventful.console.key';

let key = sessionStorage.getItem(STORAGE);

export const signedIn = () => !!key;

export function signOut() {
  key = null;
  sessionStorage.removeItem(STORAGE);
}

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

async function request(path, { method = 'GET', body, with: using = key } = {}) {
  const headers = { authorization: `Bearer ${using}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) throw new ApiError(res.status, data && typeof data.detail === 'string' ? data.detail : `HTTP ${res.status}`);
  return data;
}

/** Checks the key against the API before keeping it. */
export async function signIn(candidate) {
  await request('/api/projects/?limit=1', { with: candidate });
  key = candidate;
  sessionStorage.setItem(STORAGE, candidate);
}

export const api = (path, options) => request(path, options);

/** The public /flags/ endpoint, as an SDK calls it with the project's public token. */
export async function evaluateFlags(token, distinctId, personProperties, extra = {}) {
  const res = await fetch('/flags/?v=2', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, distinct_id: distinctId, person_properties: personProperties, ...extra }),
    credentials: 'omit',
  });
  if (!res.ok) throw new ApiError(res.status, `HTTP ${res.status}`);
  return res.json();
}
