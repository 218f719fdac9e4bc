// The /batch/ events the ingestion benches send: posthog-node style captures over 20,000 users.
import { v7 as uuidv7 } from 'uuid';

const names = ['$pageview', '$autocapture', 'signed up', 'purchase', '$feature_flag_called', 'clicked button'];

export function benchEvent(i: number) {
  const user = `user-${(i * 7919) % 20000}`;
  return {
    event: names[i % names.length],
    distinct_id: user,
    uuid: uuidv7(),
    timestamp: new Date(Date.now() - (i % 5000)).toISOString(),
    type: 'capture',
    library: 'posthog-node',
    library_version: '5.11.0',
    properties: {
      $current_url: `https://app.example.com/projects/${i % 97}/dashboard?tab=${i % 5}`,
      $browser: 'Chrome',
      $os: 'Mac OS X',
      plan: i % 3 ? 'pro' : 'free',
      $feature_flag: i % 6 === 4 ? 'new-checkout' : undefined,
      $feature_flag_response: i % 6 === 4 ? 'test' : undefined,
      revenue: (i % 100) * 1.5,
      $lib: 'posthog-node',
      $lib_version: '5.11.0',
      $geoip_disable: true,
    },
  };
}

/** `count` request bodies of `perRequest` events each, numbered from event `first`. */
export function benchBatches(count: number, perRequest: number, first = 0) {
  return Array.from({ length: count }, (_, r) => Array.from({ length: perRequest }, (_, k) => benchEvent(first + r * perRequest + k)));
}
