/**
 * A cache writer that is killed mid-line (test/core/cache/appendLog.test.ts): it stores `count` replies through
 * ResponseCache, then writes the first half of one more entry's line, as a run killed inside write(2) leaves it,
 * says "ready" and waits for its SIGKILL.
 *
 * Usage: node --import tsx tornWriter.ts <cache file> <count>
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { ResponseCache } from '../../../src/core/cache/responseCache';

const [file, count] = process.argv.slice(2);
const cache = new ResponseCache<{ text: string }>(file);
for (let i = 0; i < Number(count); i++) cache.set(`k${i}`, { text: `reply ${i}: So you feel torn — «déjà vu»` });
const line = JSON.stringify({ key: 'torn', result: { text: 'a reply that was never finished' }, at: new Date().toISOString() }) + '\n';
const fd = openSync(file, 'a');
writeSync(fd, Buffer.from(line).subarray(0, Math.floor(line.length / 2)));
closeSync(fd);
process.stdout.write('ready\n');
setInterval(() => {}, 1000);
