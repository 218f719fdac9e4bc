import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { html, ErrorNote } from '../ui.js';

const FORMAT = { name: 'file_format', label: 'File format', choices: ['JSONLines', 'Parquet'] };
const COMPRESSION = { name: 'compression', label: 'Compression', choices: ['', 'gzip', 'brotli', 'zstd', 'lz4', 'snappy'] };

/**
 * The destinations this service writes to and their settings. `secret` fields are write-only: the
 * API never shows them, so an edit leaves them empty, and an empty secret is not sent (the server
 * keeps the stored one for the same destination type).
 */
export const DESTINATIONS = {
  File: [{ name: 'path', label: 'Directory on the server', required: true }, { name: 'prefix', label: 'Key prefix' }, FORMAT, COMPRESSION],
  S3: [
    { name: 'bucket_name', label: 'Bucket', required: true },
    { name: 'region', label: 'Region' },
    { name: 'prefix', label: 'Key prefix' },
    { name: 'endpoint_url', label: 'Endpoint URL (S3-compatible services)' },
    { name: 'aws_access_key_id', label: 'Access key id', secret: true },
    { name: 'aws_secret_access_key', label: 'Secret access key', secret: true },
    FORMAT,
    COMPRESSION,
  ],
  Postgres: [
    { name: 'host', label: 'Host', required: true },
    { name: 'port', label: 'Port', number: true },
    { name: 'database', label: 'Database', required: true },
    { name: 'schema', label: 'Schema' },
    { name: 'table_name', label: 'Table' },
    { name: 'user', label: 'User', secret: true, required: true },
    { name: 'password', label: 'Password', secret: true },
  ],
  HTTP: [
    { name: 'url', label: 'Receiving /batch/ URL', required: true },
    { name: 'token', label: 'Receiving project key', secret: true, required: true },
  ],
};
const INTERVALS = ['hour', 'day', 'week', 'every 5 minutes', 'every 15 minutes'];

/** The config to send: blanks left out (the server's defaults apply), numbers as numbers. */
function configOf(type, values) {
  const config = {};
  for (const field of DESTINATIONS[type]) {
    const value = values[field.name] ?? '';
    if (value === '') continue;
    config[field.name] = field.number ? Number(value) : value;
  }
  return config;
}

/**
 * Creates a batch export, or (with `existing`) edits its name, interval and destination. Answers
 * `onSaved(export)` with the API's answer; the API's validation messages are shown as they come.
 */
export function ExportForm({ project, existing, onSaved }) {
  const [name, setName] = useState(existing?.name ?? '');
  const [interval, setInterval] = useState(existing?.interval ?? 'hour');
  const [type, setType] = useState(existing?.destination.type in DESTINATIONS ? existing.destination.type : 'File');
  const shown = existing?.destination.config ?? {};
  const [values, setValues] = useState(() =>
    Object.fromEntries((DESTINATIONS[type] ?? []).filter((f) => !f.secret).map((f) => [f.name, shown[f.name] === null || shown[f.name] === undefined ? '' : String(shown[f.name])])),
  );
  const [error, setError] = useState(null);
  const [saving, setSaving] = useState(false);
  const set = (field, value) => setValues({ ...values, [field]: value });
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    setSaving(true);
    const body = { name, interval, destination: { type, config: configOf(type, values) } };
    try {
      const saved = existing
        ? await api(`/api/projects/${project.id}/batch_exports/${encodeURIComponent(existing.id)}/`, { method: 'PATCH', body })
        : await api(`/api/projects/${project.id}/batch_exports/`, { method: 'POST', body });
      onSaved(saved);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };
  return html`
    <form onSubmit=${save} aria-label=${existing ? 'Edit batch export' : 'New batch export'}>
      <label>Name <input name="name" required value=${name} onInput=${(e) => setName(e.target.value)} /></label>
      <label>Interval
        <select name="interval" value=${interval} onChange=${(e) => setInterval(e.target.value)}>${INTERVALS.map((i) => html`<option value=${i}>${i}</option>`)}</select>
      </label>
      <label>Destination
        <select name="type" value=${type} disabled=${!!existing} onChange=${(e) => setType(e.target.value)}>${Object.keys(DESTINATIONS).map((t) => html`<option value=${t}>${t}</option>`)}</select>
      </label>
      <fieldset>
        <legend>${type} settings</legend>
        ${DESTINATIONS[type].map((f) =>
          f.choices
            ? html`<label>${f.label} <select name=${f.name} value=${values[f.name] ?? ''} onChange=${(e) => set(f.name, e.target.value)}>${f.choices.map((c) => html`<option value=${c}>${c || 'none'}</option>`)}</select></label>`
            : html`<label>${f.label}
                <input name=${f.name} type=${f.secret ? 'password' : f.number ? 'number' : 'text'} autocomplete="off"
                  required=${f.required && !(f.secret && existing)} value=${values[f.name] ?? ''}
                  placeholder=${f.secret && existing ? 'unchanged (write-only)' : ''} onInput=${(e) => set(f.name, e.target.value)} />
              </label>`,
        )}
      </fieldset>
      <button type="submit" disabled=${saving}>${existing ? 'Save' : 'Create export'}</button>
      <${ErrorNote} error=${error} />
    </form>
  `;
}
