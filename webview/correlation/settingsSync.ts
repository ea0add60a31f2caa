/**
 * The correlation panel's settings while changes are in flight. The webview owns the settings once it has sent one:
 * every change goes to the host as a `settings` message, and a table message says, in its `done.webview` (the shared
 * message layer, webview/shared/messages.ts), which of the webview's messages the host had taken in when it computed
 * it. A table computed before the host saw the latest change (the reply to an earlier change, arriving after a newer
 * one was sent) must not put its settings back into the controls: otherwise a value typed meanwhile (seed 3 after a
 * change of B) is replaced by the old one on screen, and the next change (ticking the intervals) sends the old value
 * to the host.
 */
import type { PanelSettings } from './protocol';

export class SettingsSync {
  /** The number of the last `settings` message sent (0: none yet; the host's settings are taken as they come). */
  private sent = 0;

  constructor(private current: PanelSettings) {}

  get settings(): PanelSettings {
    return this.current;
  }

  /**
   * Applies a change made in the webview and sends the settings with `send`, which returns the message's number.
   *
   * @returns the settings sent
   */
  change(patch: Partial<PanelSettings>, send: (settings: PanelSettings) => number): PanelSettings {
    this.current = { ...this.current, ...patch };
    this.sent = send(this.current);
    return this.current;
  }

  /**
   * Takes the settings of a table message when the host had taken in the latest change sent (`done`: the message's
   * `done.webview`); a reply to an older change leaves the webview's settings as they are.
   *
   * @returns whether the host's settings were taken
   */
  receive(settings: PanelSettings, done: number): boolean {
    if (done < this.sent) return false;
    this.current = settings;
    return true;
  }
}
