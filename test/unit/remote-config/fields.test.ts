import { describe, expect, it } from 'vitest';
import { configScript, settingsFields } from '../../../src/remote-config';

describe('remote-config fields from project settings (compat §6)', () => {
  it('everything off by default; autocapture on; gzip offered', () => {
    expect(settingsFields({})).toMatchObject({
      supportedCompression: ['gzip', 'gzip-js'],
      autocapture_opt_out: false,
      capturePerformance: false,
      sessionRecording: false,
      heatmaps: false,
      surveys: false,
      captureDeadClicks: false,
      autocaptureExceptions: false,
      errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
      defaultIdentifiedOnly: true,
    });
  });

  it('performance is an object as soon as either opt-in is on', () => {
    expect(settingsFields({ autocapture_web_vitals_opt_in: true, autocapture_web_vitals_allowed_metrics: ['LCP'] }).capturePerformance).toEqual({
      network_timing: false,
      web_vitals: true,
      web_vitals_allowed_metrics: ['LCP'],
    });
  });

  it('session recording: sample rate normalised (1 → null), zero duration → null, linked flag with or without variant', () => {
    const on = (extra: object) => settingsFields({ session_recording_opt_in: true, ...extra }).sessionRecording as Record<string, unknown>;
    expect(on({ session_recording_sample_rate: '0.50' }).sampleRate).toBe('0.5');
    expect(on({ session_recording_sample_rate: '1.00' }).sampleRate).toBeNull();
    expect(on({ session_recording_minimum_duration_milliseconds: 0 }).minimumDurationMilliseconds).toBeNull();
    expect(on({ session_recording_minimum_duration_milliseconds: 1500 }).minimumDurationMilliseconds).toBe(1500);
    expect(on({ session_recording_linked_flag: { id: 3, key: 'rec' } }).linkedFlag).toBe('rec');
    expect(on({ session_recording_linked_flag: { id: 3, key: 'rec', variant: 'b' } }).linkedFlag).toEqual({ flag: 'rec', variant: 'b' });
    expect(on({ capture_console_log_opt_in: true })).toMatchObject({ endpoint: '/s/', recorderVersion: 'v2', consoleLogRecordingEnabled: true });
  });

  it('config.js cannot be broken out of by a string value', () => {
    const script = configScript({ token: 'phc_x', note: '</script><script>alert(1)</script>\u2028', siteApps: [] });
    expect(script).not.toContain('</script>');
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: { note: string } }> } = {};
    new Function('window', script)(window);
    expect(window._POSTHOG_REMOTE_CONFIG!.phc_x.config.note).toBe('</script><script>alert(1)</script>\u2028');
  });
});
