/**
 * Test pages loading posthog-js the two ways users do. Headless Chromium's user agent is dropped
 * as a bot by posthog-js, so the page (not the service) turns that filter off.
 */
export interface InitOptions {
  apiHost: string;
  token: string;
  /** Extra `posthog.init` options, as a JS object literal's body. */
  extra?: string;
}

const body = `<button id="buy" class="cta primary">Buy now</button>`;

const options = (o: InitOptions) => `{
  api_host: ${JSON.stringify(o.apiHost)},
  opt_out_useragent_filter: true,
  loaded: function () { window.__posthogLoaded = true; },
  ${o.extra ?? ''}
}`;

/** PostHog's HTML snippet: a stub `window.posthog` that loads `<api_host>/static/array.js`. */
const SNIPPET = `!function(t,e){var o,n,p,r;e.__SV||(window.posthog&&window.posthog.__loaded)||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="init capture register register_once register_for_session unregister unregister_for_session getFeatureFlag getFeatureFlagPayload isFeatureEnabled reloadFeatureFlags updateEarlyAccessFeatureEnrollment getEarlyAccessFeatures on onFeatureFlags onSessionId getSurveys getActiveMatchingSurveys renderSurvey canRenderSurvey getNextSurveyStep identify setPersonProperties group resetGroups setPersonPropertiesForFlags resetPersonPropertiesForFlags setGroupPropertiesForFlags resetGroupPropertiesForFlags reset get_distinct_id getGroups get_session_id get_session_replay_url alias set_config startSessionRecording stopSessionRecording sessionRecordingStarted captureException loadToolbar get_property getSessionProperty createPersonProfile opt_in_capturing opt_out_capturing has_opted_in_capturing has_opted_out_capturing clear_opt_in_out_capturing debug".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);`;

export const snippetPage = (o: InitOptions) => `<!doctype html>
<html><head><title>snippet</title><link rel="icon" href="data:,">
<script>
${SNIPPET}
posthog.init(${JSON.stringify(o.token)}, ${options(o)});
</script></head><body>${body}</body></html>`;

/**
 * The npm build as a bundler ships it: Vite, webpack and esbuild resolve \`posthog-js\` through its
 * package's \`module\` field to \`dist/module.mjs\` (self-contained ESM) and serve it from the site's own
 * origin; that build lazy-loads its extensions from \`<api_host>/static/\`.
 */
export const npmPage = (o: InitOptions, bundlePath: string) => `<!doctype html>
<html><head><title>npm</title><link rel="icon" href="data:,">
<script type="module">
import posthog from ${JSON.stringify(bundlePath)};
window.posthog = posthog;
posthog.init(${JSON.stringify(o.token)}, ${options(o)});
</script></head><body>${body}</body></html>`;
