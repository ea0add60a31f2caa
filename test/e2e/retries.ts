/**
 * Root hooks of the e2e suite. The suite drives a real VS Code in Chromium on a 2-core machine, and `.mocharc.json`
 * gives each test one retry; an attempt that failed is printed as FLAKY, so a retry is seen in the log and can be
 * fixed, never silently absorbed. (Mocha runs `afterEach` after an attempt it will retry, leaving the test's state
 * unset: neither passed nor failed.)
 */
import type { Context } from 'mocha';

export const mochaHooks = {
  afterEach(this: Context): void {
    const t = this.currentTest as (Mocha.Test & { currentRetry(): number }) | undefined;
    if (!t || t.state !== undefined || t.isPending()) return;
    console.log(`      FLAKY: attempt ${t.currentRetry() + 1} of "${t.fullTitle()}" failed; retrying`);
  },
};
