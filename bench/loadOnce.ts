/**
 * One model load in a process of its own, for `npm run bench -- load` (load.bench.ts): prints one JSON line
 * `{"ms":…,"rssBytes":…,"how":"…"}`. Arguments: `<folder> <gpt2|bart> <way>`, where way is `staged` (the default
 * load), `file` (`stageWeights: false`), and for GPT-2 also `present` / `present-file` (`staticCache: false`,
 * staged or not).
 */
import { OnnxCausalLM } from '../src/core/models/causalLM';
import { cwdLocator, loadGenerativeModel } from '../src/core/models/registry';

async function main(): Promise<void> {
  // The kind (gpt2 | bart) names the run; the registry tells the architecture from config.json.
  const [folder, , way] = process.argv.slice(2);
  const options = { staticCache: !way.startsWith('present'), stageWeights: !way.endsWith('file') };
  const t0 = performance.now();
  const model = await loadGenerativeModel(folder, cwdLocator(), options);
  const ms = performance.now() - t0;
  const how = model instanceof OnnxCausalLM ? (model.cacheMode.kind === 'static' ? `cache in place, graph from ${model.cacheMode.loadedFrom}` : 'cache returned') : '';
  console.log(JSON.stringify({ ms, rssBytes: process.memoryUsage().rss, how }));
  await model.dispose();
}

void main();
