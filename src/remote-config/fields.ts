import type { ProjectSettings } from '../../streams';

/** The compressions posthog-js may use for ingestion; it picks `gzip-js` when listed. */
export const SUPPORTED_COMPRESSION = ['gzip', 'gzip-js'];

/** `sessionRecording` when the project records: PostHog's keys, each from its setting. */
function sessionRecording(s: ProjectSettings) {
  if (!s.session_recording_opt_in) return false;
  const rate = s.session_recording_sample_rate == null ? null : Number(s.session_recording_sample_rate);
  const linked = s.session_recording_linked_flag;
  return {
    endpoint: '/s/',
    consoleLogRecordingEnabled: s.capture_console_log_opt_in ?? false,
    recorderVersion: 'v2',
    // PostHog normalises the decimal and sends "no sampling" as null.
    sampleRate: rate === null || rate === 1 ? null : String(rate),
    minimumDurationMilliseconds: s.session_recording_minimum_duration_milliseconds || null,
    linkedFlag: linked ? (linked.variant ? { flag: linked.key, variant: linked.variant } : linked.key) : null,
    networkPayloadCapture: null,
    masking: null,
    urlTriggers: [],
    urlBlocklist: [],
    eventTriggers: [],
    triggerMatchType: null,
    scriptConfig: null,
    recordCanvas: false,
    canvasFps: null,
    canvasQuality: null,
  };
}

/**
 * The remote-config keys derived from a project's settings, named as posthog-js reads them
 * (PostHog's `posthog/models/remote_config.py`). Shared by `/array/<token>/config`, `/flags` with
 * `config=true` and `/decide`.
 */
export function settingsFields(s: ProjectSettings): Record<string, unknown> {
  const performance =
    s.capture_performance_opt_in || s.autocapture_web_vitals_opt_in
      ? {
          network_timing: s.capture_performance_opt_in ?? false,
          web_vitals: s.autocapture_web_vitals_opt_in ?? false,
          web_vitals_allowed_metrics: s.autocapture_web_vitals_allowed_metrics ?? null,
        }
      : false;
  const exceptions = s.autocapture_exceptions_opt_in ?? false;
  return {
    supportedCompression: SUPPORTED_COMPRESSION,
    captureDeadClicks: s.capture_dead_clicks ?? false,
    capturePerformance: performance,
    autocapture_opt_out: s.autocapture_opt_out ?? false,
    autocaptureExceptions: exceptions,
    errorTracking: { autocaptureExceptions: exceptions, suppressionRules: [] },
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    sessionRecording: sessionRecording(s),
    heatmaps: s.heatmaps_opt_in ?? false,
    // Surveys are served as a list by PostHog; until they exist here an opt-in is a plain `true`.
    surveys: s.surveys_opt_in ?? false,
    defaultIdentifiedOnly: true,
    // Site apps are not built: none are ever injected, whatever `inject_web_apps` says.
    siteApps: [],
  };
}
