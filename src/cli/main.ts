/**
 * `reflect-eval`: the headless command line on the same core as the VS Code extension. Each subcommand lives
 * in its own module under `commands/` and registers itself here.
 */
import { Command } from 'commander';
import { log } from './common';
import { registerAgreement } from './commands/agreement';
import { registerAltTest } from './commands/altTest';
import { registerImport, registerStats } from './commands/annomi';
import { registerAnnotationImport, registerExport } from './commands/annotations';
import { registerCompact } from './commands/compact';
import { registerCorrelate } from './commands/correlate';
import { registerDedup } from './commands/dedup';
import { registerDemo } from './commands/demo';
import { registerEstimate } from './commands/estimate';
import { registerGenerate } from './commands/generate';
import { registerGenericImport } from './commands/importGeneric';
import { registerJudge } from './commands/judge';
import { registerLabels } from './commands/labels';
import { registerScore } from './commands/score';
import { registerPerplexity } from './commands/perplexity';
import { registerPlanLabels } from './commands/planLabels';
import { registerRepeatability } from './commands/repeatability';
import { registerReport } from './commands/report';
import { registerRun } from './commands/run';
import { registerSearchPrompts } from './commands/searchPrompts';
import { registerSplit } from './commands/split';
import { registerStudies } from './commands/studies';
import { registerTeam } from './commands/team';
import { packageVersion } from './paths';

/** Builds the `reflect-eval` program. */
export function buildProgram(): Command {
  const program = new Command('reflect-eval')
    .description('Generate, label, score, judge and correlate counselling reflections (ReflectEval)')
    .version(packageVersion())
    .showHelpAfterError();
  registerAnnotationImport(registerImport(program));
  registerGenericImport(program);
  registerExport(program);
  registerStats(program);
  registerGenerate(program);
  registerPerplexity(program);
  registerJudge(program);
  registerSearchPrompts(program);
  registerScore(program);
  registerCorrelate(program);
  registerPlanLabels(program);
  registerEstimate(program);
  registerAgreement(program);
  registerAltTest(program);
  registerRepeatability(program);
  registerReport(program);
  registerDedup(program);
  registerSplit(program);
  registerTeam(program);
  registerLabels(program);
  registerCompact(program);
  registerRun(program);
  registerDemo(program);
  registerStudies(program);
  return program;
}

/** Runs the CLI; exits non-zero with the error message on failure. */
export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    log(`reflect-eval: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
