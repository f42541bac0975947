import { describe, expect, it } from 'vitest';
import { inspectorCss } from '../../../src/integrations/inspector/inspector-page.js';

/** The selectors of the CSS rule that sets `background`, by its colour. */
function selectorsWithBackground(colour: string): string[] {
  const rule = inspectorCss.split('\n').find((line) => line.endsWith(`{ background: ${colour}; }`));
  return rule === undefined ? [] : rule.slice(0, rule.indexOf('{')).trim().split(', ');
}

describe('the inspector badges', () => {
  it('give a failed server and a denied attachment the red badge, a disconnected one the yellow', () => {
    const red = selectorsWithBackground('#f8d7d5');
    const yellow = selectorsWithBackground('#fbeccb');
    expect(red).toEqual(
      expect.arrayContaining(['.state-failed', '.state-error', '.status-denied', '.status-timeout']),
    );
    expect(yellow).toEqual(expect.arrayContaining(['.state-disconnected', '.status-omitted-budget']));
    expect(red).not.toContain('.state-disconnected');
    expect(selectorsWithBackground('#d5f0dc')).toEqual([
      '.state-injected',
      '.status-injected',
      '.state-connected',
      '.status-connected',
    ]);
  });
});
