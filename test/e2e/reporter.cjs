/**
 * The e2e suite's reporter: Mocha's spec reporter, plus every failed attempt that `retries` (.mocharc.json) runs
 * again, printed as FLAKY with its error — so a retried failure is seen in the log, with its cause, and can be fixed.
 */
'use strict';
const Mocha = require('mocha');

class SpecWithRetries extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.on(Mocha.Runner.constants.EVENT_TEST_RETRY, (test, err) => {
      const message = String((err && (err.stack || err.message)) || err).split('\n').slice(0, 12).join('\n        ');
      console.log(`      FLAKY: attempt ${test.currentRetry() + 1} of "${test.fullTitle()}" failed; retrying. Its error:\n        ${message}`);
    });
  }
}

module.exports = SpecWithRetries;
