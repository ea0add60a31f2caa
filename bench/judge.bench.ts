/**
 * `npm run bench -- judge --size real [...]`: local chat judges at Qwen3-0.6B's and Llama-3.2-1B's shapes against
 * transformers.js and against limits measured in the same run (judgeReal.ts, which lists the flags and ratios).
 * Without `--size real` it runs the same measurements on the tiny committed fixtures (reflect-qwen3-tiny), whose
 * ratios say nothing about real sizes but exercise the bench in seconds.
 */
import { join, resolve } from 'node:path';
import { runJudgeReal } from './judgeReal';

export async function run(args: string[]): Promise<void> {
  const i = args.indexOf('--size');
  if (i >= 0 && args[i + 1] === 'real') return runJudgeReal(args);
  console.log('judge bench on the committed fixtures (use --size real for the real-size models)');
  return runJudgeReal(['--folder', join(resolve(__dirname, '..'), 'fixtures', 'models', 'reflect-qwen3-tiny'), '--only', 'qwen3', '--dtype', 'fp32', '--matrix-candidates', '4', ...args]);
}
