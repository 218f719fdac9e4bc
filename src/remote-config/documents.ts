/** `GET /array/<token>/config`: the settings fields, the token and whether `/flags` is worth calling. */
export const configJson = (token: string, fields: Record<string, unknown>, hasFeatureFlags: boolean) => ({
  token,
  ...fields,
  hasFeatureFlags,
});

/**
 * `config.js`: the same config set on `window._POSTHOG_REMOTE_CONFIG[token]`, where posthog-js
 * looks first. Site apps would be JS objects here; none exist, so the list is empty.
 */
export function configScript(config: Record<string, unknown>): string {
  const { siteApps: _siteApps, ...rest } = config;
  // JSON is valid JS except for U+2028/2029 in strings on old engines, and `</script>` when inlined.
  const json = JSON.stringify(rest).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  const token = JSON.stringify(config.token);
  return `(function() {
  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};
  window._POSTHOG_REMOTE_CONFIG[${token}] = {
    config: ${json},
    siteApps: []
  }
})();`;
}
