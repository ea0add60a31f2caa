/**
 * The correlation panel's settings while changes are in flight (webview/correlation/settingsSync.ts): the reply to an
 * earlier change must not undo a later one. CI showed the panel's Kendall intervals for seed 1 (the CLI's
 * [0.418, 0.735] at B = 200, seed 1) after the test had typed seed 3 and then ticked the intervals: the reply to
 * the resamples change, computed with seed 1, put seed 1 back into the controls, and ticking the intervals sent it.
 */
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../../webview/correlation/protocol';
import { SettingsSync } from '../../../webview/correlation/settingsSync';

describe('correlation panel settings in flight', () => {
  it('a reply to an earlier change leaves a later change in place, and the next change sends both', () => {
    const sync = new SettingsSync({ ...DEFAULT_SETTINGS });
    const host: { settings: typeof DEFAULT_SETTINGS; rev: number }[] = [];
    host.push(sync.change({ method: 'kendall' }));
    host.push(sync.change({ resamples: 200 }));
    host.push(sync.change({ seed: 3 }));
    // The host's tables for the first two changes arrive now, computed with seed 1.
    assert.equal(sync.receive(host[0].settings, host[0].rev), false);
    assert.equal(sync.receive(host[1].settings, host[1].rev), false);
    assert.deepEqual([sync.settings.resamples, sync.settings.seed], [200, 3]);
    const intervals = sync.change({ intervals: true });
    assert.deepEqual({ method: intervals.settings.method, resamples: intervals.settings.resamples, seed: intervals.settings.seed, intervals: intervals.settings.intervals }, { method: 'kendall', resamples: 200, seed: 3, intervals: true });
    assert.equal(intervals.rev, 4);
    // The reply to the seed change (old) and to the intervals change (current).
    assert.equal(sync.receive(host[2].settings, host[2].rev), false);
    assert.equal(sync.settings.intervals, true);
    assert.equal(sync.receive(intervals.settings, intervals.rev), true);
  });

  it('takes the host settings before any change of its own, and from a host that is ahead (a reopened panel)', () => {
    const sync = new SettingsSync({ ...DEFAULT_SETTINGS });
    assert.equal(sync.receive({ ...DEFAULT_SETTINGS, method: 'pearson', intervals: true }, 0), true);
    assert.equal(sync.settings.method, 'pearson');
    const reopened = new SettingsSync({ ...DEFAULT_SETTINGS });
    assert.equal(reopened.receive({ ...DEFAULT_SETTINGS, seed: 9 }, 5), true);
    assert.equal(reopened.change({ resamples: 50 }).rev, 6, 'later changes count on from the host revision');
  });
});
