/**
 * The correlation panel's settings while changes are in flight (webview/correlation/settingsSync.ts): the reply to an
 * earlier change must not undo a later one. CI showed the panel's Kendall intervals for seed 1 (the CLI's
 * [0.418, 0.735] at B = 200, seed 1) after the test had typed seed 3 and then ticked the intervals: the reply to
 * the resamples change, computed with seed 1, put seed 1 back into the controls, and ticking the intervals sent it.
 */
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS, type PanelSettings } from '../../../webview/correlation/protocol';
import { SettingsSync } from '../../../webview/correlation/settingsSync';

/** What the webview sent, numbered as its channel numbers messages (other messages in between). */
function sender() {
  let seq = 0;
  const sent: { settings: PanelSettings; seq: number }[] = [];
  return {
    sent,
    send: (settings: PanelSettings) => {
      seq += 2; // a message of another kind (a strip request, say) between two changes
      sent.push({ settings, seq });
      return seq;
    },
  };
}

describe('correlation panel settings in flight', () => {
  it('a reply to an earlier change leaves a later change in place, and the next change sends both', () => {
    const sync = new SettingsSync({ ...DEFAULT_SETTINGS });
    const host = sender();
    sync.change({ method: 'kendall' }, host.send);
    sync.change({ resamples: 200 }, host.send);
    sync.change({ seed: 3 }, host.send);
    // The host's tables for the first two changes arrive now, computed with seed 1: the host had taken in messages
    // up to each change (and the message after it).
    assert.equal(sync.receive(host.sent[0].settings, host.sent[0].seq + 1), false);
    assert.equal(sync.receive(host.sent[1].settings, host.sent[1].seq), false);
    assert.deepEqual([sync.settings.resamples, sync.settings.seed], [200, 3]);
    const intervals = sync.change({ intervals: true }, host.send);
    assert.deepEqual({ method: intervals.method, resamples: intervals.resamples, seed: intervals.seed, intervals: intervals.intervals }, { method: 'kendall', resamples: 200, seed: 3, intervals: true });
    // The reply to the seed change (old) and to the intervals change (current).
    assert.equal(sync.receive(host.sent[2].settings, host.sent[2].seq), false);
    assert.equal(sync.settings.intervals, true);
    assert.equal(sync.receive(host.sent[3].settings, host.sent[3].seq), true);
  });

  it('takes the host settings before any change of its own (a reopened panel restores them)', () => {
    const sync = new SettingsSync({ ...DEFAULT_SETTINGS });
    assert.equal(sync.receive({ ...DEFAULT_SETTINGS, method: 'pearson', intervals: true }, 0), true);
    assert.equal(sync.settings.method, 'pearson');
    assert.equal(sync.receive({ ...DEFAULT_SETTINGS, seed: 9 }, 5), true, 'a host that has seen more of this page');
    assert.equal(sync.settings.seed, 9);
  });
});
