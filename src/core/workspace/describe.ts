/**
 * The words the side bar and `reflect-eval studies` use for a study and its runs, so both programs say the same.
 */
import type { GenerationRunSummary, JudgeRunSummary } from './manifests';
import type { OriginGroup } from './studyContent';
import type { StudyIndex, StudySummary } from './studies';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `2026-03-01 14:05` (UTC) from an ISO time, or '' without one. */
export function shortTime(iso: string | undefined): string {
  return iso && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '';
}

/** A cost in dollars, as precise as small costs need. */
export function formatCost(cost: number | null): string {
  if (cost === null) return 'no price set';
  return cost < 0.01 && cost > 0 ? `$${cost.toPrecision(2)}` : `$${cost.toFixed(2)}`;
}

/**
 * A study's progress in one line: `12/30 labelled by you · 3 annotators` with a viewing annotator, else
 * `150/165 labelled · 18 annotators` (candidates with at least one coherence answer).
 */
export function describeProgress(s: StudySummary): string {
  if (!s.content) return s.error ?? 'not readable';
  const { candidates, progress, labelledByAnyone } = s.content;
  const others = progress.annotators.length;
  const who = others ? ` · ${plural(others, 'annotator')}` : '';
  return s.mine !== null ? `${s.mine}/${candidates} labelled by you${who}` : `${labelledByAnyone}/${candidates} labelled${who}`;
}

/** `local: bundled:reflect-gpt2-tiny · 2 variants · 300 judgements, 280 calls, 20 cached · $0.12 · 2026-03-01 14:05` */
export function describeJudgeRun(r: JudgeRunSummary): string {
  const parts = [
    r.judges.join(', ') || 'judges not recorded',
    plural(r.variants, 'variant'),
    `${r.judgements} judgements, ${r.calls} calls, ${r.cacheHits} cached${r.failures ? `, ${r.failures} failed` : ''}${r.batch ? ' (Batch API)' : ''}`,
    formatCost(r.cost),
    shortTime(r.finishedAt),
  ];
  return parts.filter(Boolean).join(' · ');
}

/** `greedy · local: bundled:reflect-gpt2-tiny · 15/15 contexts, 15 new · 2026-03-01 14:05` */
export function describeGenerationRun(r: GenerationRunSummary): string {
  const parts = [
    r.settings.join(', ') || 'settings not recorded',
    r.generators.join(', ') || 'generators not recorded',
    `${r.contextsDone}/${r.contextsTotal} contexts, ${r.added} new${r.duplicates ? `, ${r.duplicates} duplicates` : ''}${r.cancelled ? ', cancelled' : ''}`,
    shortTime(r.finishedAt),
  ];
  return parts.filter(Boolean).join(' · ');
}

/** `greedy · bundled:reflect-gpt2-tiny · 15 candidates (from their origins)` */
export function describeOriginGroup(g: OriginGroup): string {
  return [g.strategy || 'strategy not recorded', `${g.kind === 'api' ? 'api' : 'local'}: ${g.model || 'model not recorded'}`, `${plural(g.candidates, 'candidate')} (from their origins)`].join(' · ');
}

/** The index as plain text: a study a paragraph, its runs and files indented under it. */
export function formatStudyIndex(index: StudyIndex): string {
  const out: string[] = [];
  if (index.studies.length === 0) out.push('no studies (*.dialogues.jsonl) in this folder');
  for (const s of index.studies) {
    out.push(`${s.path}: ${describeProgress(s)}`);
    if (s.content) {
      const metrics = new Set(s.content.evaluators.filter((e) => e.kind === 'metric').map((e) => e.id)).size;
      const judges = s.content.evaluators.filter((e) => e.kind === 'judge').length;
      out.push(`  ${plural(s.content.items, 'item')}, ${plural(s.content.candidates, 'candidate')}; scores: ${plural(metrics, 'metric output')}, ${plural(judges, 'judge evaluator')}${s.content.problemLines.length ? `; ${plural(s.content.problemLines.length, 'problem line')} (first: line ${s.content.problemLines[0]})` : ''}`);
    }
    for (const sc of s.content?.sidecars ?? []) out.push(`  labels of ${sc.annotator} in ${s.name}.labels/${sc.name}: ${plural(sc.labels, 'candidate')}${sc.problemLines.length ? `; ${plural(sc.problemLines.length, 'line')} left out (first: line ${sc.problemLines[0]}; reflect-eval labels check says why)` : ''}`);
    for (const r of s.generationRuns) out.push(`  generation: ${describeGenerationRun(r)}`);
    for (const g of s.generatedWithoutManifest) out.push(`  generation: ${describeOriginGroup(g)}`);
    for (const r of s.judgeRuns) out.push(`  judge run: ${describeJudgeRun(r)} (${r.manifest})`);
    for (const p of s.labelPlans) out.push(`  label plan: ${p}`);
    for (const p of s.reports) out.push(`  report: ${p}`);
    for (const p of s.packets) out.push(`  packet: ${p.path}${p.annotator ? ` (${p.annotator})` : ''}`);
  }
  const u = index.unmatched;
  for (const r of u.judgeRuns) out.push(`judge run of a file not here (${r.file ?? '?'}): ${r.manifest}`);
  for (const r of u.generationRuns) out.push(`generation run of a file not here (${r.file ?? '?'}): ${r.manifest}`);
  for (const p of u.reports) out.push(`report of a study not found here, or found in several folders: ${p}`);
  for (const p of u.packets) out.push(`packet of a study not found here, or found in several folders: ${p.path}`);
  for (const p of index.problems) out.push(`${p.file}: ${p.message}`);
  return out.join('\n') + '\n';
}
