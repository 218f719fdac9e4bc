import { h } from 'preact';
import htm from 'htm';

// htm builds vnodes, never markup strings: whatever users or SDKs wrote is rendered as text nodes.
export const html = htm.bind(h);

/** Write scopes decide which write controls are shown; '*' grants them all. */
export const canWrite = (scopes, object) => !scopes || scopes.includes('*') || scopes.includes(`${object}:write`);

export const ErrorNote = ({ error }) => (error ? html`<p class="error" role="alert">${String(error.message ?? error)}</p>` : null);

export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
