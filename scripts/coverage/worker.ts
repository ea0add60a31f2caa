/** A worker thread of the coverage study: runs the chunks it is sent and answers with their tallies. */
import { parentPort } from 'node:worker_threads';
import { runChunk, type Truth } from './study';
import type { Scenario } from './scenarios';

parentPort?.on('message', (job: { scenario: Scenario; truth: Truth; start: number; end: number }) => {
  const started = performance.now();
  const tallies = runChunk(job.scenario, job.truth, job.start, job.end);
  parentPort?.postMessage({ id: job.scenario.id, tallies, wallMs: performance.now() - started });
});
