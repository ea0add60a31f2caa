/**
 * `reflect-eval generate`.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { writeItemsBack } from '../../core/format/files';
import { generateCandidates } from '../../core/generation/generate';
import type { OnnxCausalLM } from '../../core/models/causalLM';
import type { DialogueItem } from '../../core/model/types';
import { loadModel, log, openDialogues, positiveInt } from '../common';

/** Greedy candidates for every item, with progress on stderr. */
export function generateStep(items: DialogueItem[], model: OnnxCausalLM, maxNewTokens: number): Promise<DialogueItem[]> {
  return generateCandidates(model, items, { strategy: 'greedy', maxNewTokens }, {
    onProgress: (p) => log(`generated ${p.itemsDone}/${p.itemsTotal} contexts, ${p.tokensGenerated} tokens, ${((p.tokensGenerated / p.elapsedMs) * 1000).toFixed(1)} tokens/s`),
  });
}

export function registerGenerate(program: Command): void {
  program
    .command('generate <file>')
    .description('generate one greedy candidate per item with a local ONNX model')
    .option('--model <folderOrHubId>', 'model folder (HF/Optimum ONNX layout) or hub id (default: the bundled model)')
    .option('--max-new-tokens <n>', 'tokens to generate at most', positiveInt, 128)
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const { doc, items } = openDialogues(file);
      const model = await loadModel(opts.model as string | undefined);
      try {
        const updated = await generateStep(items, model, opts.maxNewTokens as number);
        const n = writeItemsBack(doc, updated, resolve((opts.out as string | undefined) ?? file));
        log(`updated ${n} items`);
      } finally {
        await model.dispose();
      }
    });
}
