/**
 * The correlation panel's settings while changes are in flight. The webview owns the settings once it has sent one:
 * every change goes to the host with a revision number, and the host's table messages echo the revision they were
 * computed for. A table computed for an older revision (the reply to an earlier change, arriving after a newer one
 * was sent) must not put its settings back into the controls: otherwise a value typed meanwhile (seed 3 after a
 * change of B) is replaced by the old one on screen, and the next change (ticking the intervals) sends the old value
 * to the host.
 */
import type { PanelSettings } from './protocol';

export class SettingsSync {
  /** The revision of the last change sent (0: none yet; the host's settings are taken as they come). */
  private rev = 0;

  constructor(private current: PanelSettings) {}

  get settings(): PanelSettings {
    return this.current;
  }

  /** Applies a change made in the webview; returns what to send to the host. */
  change(patch: Partial<PanelSettings>): { settings: PanelSettings; rev: number } {
    this.current = { ...this.current, ...patch };
    this.rev++;
    return { settings: this.current, rev: this.rev };
  }

  /**
   * Takes the settings of a table message when it reflects the latest change sent (or later: a host restored from
   * its saved state echoes what it has); a reply to an older change leaves the webview's settings as they are.
   *
   * @returns whether the host's settings were taken
   */
  receive(settings: PanelSettings, rev: number): boolean {
    if (rev < this.rev) return false;
    this.current = settings;
    this.rev = rev;
    return true;
  }
}
