import { describe, expect, it } from 'vitest';
import type { ActionStep } from '../../../streams';
import { actionMatches, checkAction, readsProperties, stepEvents, stepMatches } from '../../../src/actions/match';
import { readSteps } from '../../../src/actions/steps';

const now = new Date('2026-01-01T00:00:00Z');
const step = (given: Partial<ActionStep>): ActionStep => readSteps([given])[0]!;
const ev = (event: string, properties: Record<string, unknown> = {}) => ({ event, properties });

describe('action step matching', () => {
  it('by event name; a step without one matches any event', () => {
    expect(stepMatches(step({ event: 'purchase' }), ev('purchase'), now)).toBe(true);
    expect(stepMatches(step({ event: 'purchase' }), ev('Purchase'), now)).toBe(false);
    expect(stepMatches(step({}), ev('anything'), now)).toBe(true);
  });

  it('URL contains (the default, case-sensitive), exact and regex on $current_url; no URL matches nothing', () => {
    const contains = step({ event: '$pageview', url: '/pricing' });
    expect(contains.url_matching).toBe('contains');
    expect(stepMatches(contains, ev('$pageview', { $current_url: 'https://a.example/pricing?x=1' }), now)).toBe(true);
    expect(stepMatches(contains, ev('$pageview', { $current_url: 'https://a.example/Pricing' }), now)).toBe(false);
    expect(stepMatches(contains, ev('$pageview', {}), now)).toBe(false);
    const exact = step({ event: '$pageview', url: 'https://a.example/', url_matching: 'exact' });
    expect(stepMatches(exact, ev('$pageview', { $current_url: 'https://a.example/' }), now)).toBe(true);
    expect(stepMatches(exact, ev('$pageview', { $current_url: 'https://a.example/x' }), now)).toBe(false);
    const regex = step({ event: '$pageview', url: '^https://(www\\.)?a\\.example/docs/\\d+$', url_matching: 'regex' });
    expect(stepMatches(regex, ev('$pageview', { $current_url: 'https://www.a.example/docs/42' }), now)).toBe(true);
    expect(stepMatches(regex, ev('$pageview', { $current_url: 'https://a.example/docs/x' }), now)).toBe(false);
    // A null url_matching (given so) compares as contains, as PostHog's fallback does.
    expect(stepMatches(step({ url: 'docs', url_matching: null }), ev('$pageview', { $current_url: 'https://a.example/docs' }), now)).toBe(true);
  });

  it('every property filter must hold, with the flags operators (a negative one holds where the property is missing)', () => {
    const s = step({ event: 'purchase', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }, { key: 'amount', value: 10, operator: 'gt' }] });
    expect(stepMatches(s, ev('purchase', { plan: 'pro', amount: 12 }), now)).toBe(true);
    expect(stepMatches(s, ev('purchase', { plan: 'pro', amount: 8 }), now)).toBe(false);
    expect(stepMatches(s, ev('purchase', { plan: 'basic', amount: 12 }), now)).toBe(false);
    const not = step({ event: 'purchase', properties: [{ key: 'plan', value: 'pro', operator: 'is_not' }] });
    expect(stepMatches(not, ev('purchase', {}), now)).toBe(true);
    expect(stepMatches(not, ev('purchase', { plan: 'pro' }), now)).toBe(false);
  });

  it('all of one step, any of the steps', () => {
    const steps = [step({ event: '$pageview', url: '/pricing' }), step({ event: 'signed_up' })];
    expect(actionMatches(steps, ev('signed_up'), now)).toBe(true);
    expect(actionMatches(steps, ev('$pageview', { $current_url: '/pricing' }), now)).toBe(true);
    expect(actionMatches(steps, ev('$pageview', { $current_url: '/blog' }), now)).toBe(false);
    expect(actionMatches(steps, ev('purchase', { $current_url: '/pricing' }), now)).toBe(false);
    expect(actionMatches([], ev('x'), now)).toBe(false);
  });

  it('element fields are read on $autocapture steps only, as PostHog (elsewhere they change nothing)', () => {
    expect(stepMatches(step({ event: 'clicked', text: 'Buy' }), ev('clicked'), now)).toBe(true);
    expect(() => checkAction({ id: 1, steps: [step({ event: 'clicked', text: 'Buy' })] })).not.toThrow();
  });

  it('the events to read and whether properties are needed', () => {
    const steps = [step({ event: 'a' }), step({ event: 'b', url: 'x' }), step({ event: 'a' })];
    expect(stepEvents(steps)).toEqual(['a', 'b']);
    expect(readsProperties(steps)).toBe(true);
    expect(readsProperties([step({ event: 'a' })])).toBe(false);
    expect(readsProperties([step({ event: 'a', properties: [{ key: 'k', value: 1 }] })])).toBe(true);
  });

  it('refuses what it cannot evaluate, naming the action, the step and the field', () => {
    const refused = (steps: ActionStep[]) => {
      try {
        checkAction({ id: 7, steps });
      } catch (err) {
        return (err as Error).message;
      }
      return null;
    };
    expect(refused([])).toBe('Action 7 has no steps (it would match every event), which is not supported here.');
    expect(refused([step({ event: 'a' }), step({ url: '/x' })])).toBe('Action 7 step 2: a step without an event (matching any event) is not supported here.');
    for (const field of ['selector', 'tag_name', 'text', 'href'] as const) {
      expect(refused([step({ event: '$autocapture', [field]: 'x' })])).toBe(`Action 7 step 1: matching on '${field}' (the elements chain) is not supported here.`);
    }
    expect(refused([step({ event: 'a', properties: [{ key: 'id', value: 3, type: 'cohort' }] })])).toBe("Action 7 step 1: a property filter of type 'cohort' (only event properties) is not supported here.");
    expect(refused([step({ event: 'a', properties: [{ value: 3 }] })])).toBe('Action 7 step 1: a property filter without a key is not supported here.');
    expect(refused([step({ event: '$autocapture' }), step({ event: 'a', properties: [{ key: 'k', value: 1, type: 'event' }] })])).toBeNull();
  });
});

describe('reading steps (PostHog ActionStepJSONSerializer)', () => {
  it('stores every key, url_matching contains unless given, unknown keys dropped', () => {
    expect(readSteps([{ event: 'a', id: 'x', name: 'old' }])).toEqual([
      { event: 'a', properties: null, selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null, url: null, url_matching: 'contains' },
    ]);
    expect(readSteps([{ url: 'x', url_matching: 'exact' }])[0]!.url_matching).toBe('exact');
    expect(readSteps([{ url: 'x', url_matching: null }])[0]!.url_matching).toBeNull();
  });
});
