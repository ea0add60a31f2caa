/**
 * Plain-text rendering of a {@link FirstStudyAnalysis} for the command line (`reflect-eval agreement`).
 */
import type { AgreementTable } from './agreementTable';
import type { FirstStudyAnalysis } from './firstStudy';
import { formatNumber } from '../tables/numberFormat';

function table(header: string[], rows: string[][], right: (col: number) => boolean = (c) => c > 0): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

const num = (v: number | null, digits = 3) => (v === null ? '–' : formatNumber(v, digits));
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);

function leftOutNotes(tables: AgreementTable[]): string[] {
  const notes: string[] = [];
  for (const t of tables) {
    for (const [reason, n] of Object.entries(t.leftOut)) notes.push(`${t.group}: ${n} response(s) left out of every row: ${reason}`);
    for (const r of t.rows) {
      for (const [reason, n] of Object.entries(r.leftOut)) notes.push(`${t.group}, ${r.label}: ${n} response(s) left out: ${reason}`);
      if (r.kappa === null && r.undefinedReason && r.undefinedReason !== 'no subjects') notes.push(`${t.group}, ${r.label}: kappa undefined (${r.undefinedReason})`);
    }
  }
  return notes;
}

/** The analysis as aligned plain-text tables: Table 4, coherence scores by group, Figure 3 and Figure 4 as numbers. */
export function formatFirstStudyAnalysis(a: FirstStudyAnalysis): string {
  const out: string[] = [];
  const s = a.summary;
  const experts = s.annotators.filter((x) => x.group === 'expert').length;
  out.push(`${s.items} items, ${s.candidates} responses (${s.labelledCandidates} labelled), ${s.annotations} annotations by ${s.annotators.length} annotators (${experts} experts, ${s.annotators.length - experts} laypeople; experts: names starting "${a.options.expertPrefix}" or group "expert")`);

  out.push('', "Inter-annotator agreement — Fleiss' kappa (first study §5.1, Table 4; (M): category merging)");
  const groups = a.agreement.filter((t) => t.rows.length > 0);
  if (groups.length === 0) out.push('  no response has coherence labels from two or more annotators');
  else {
    const header = ['', ...groups.flatMap((t) => [`${t.group} (n=${t.raters}) IAA`, '#Sub'])];
    const rows: string[][] = [];
    for (const [title, derived] of [['Original', false], ['Derived', true]] as const) {
      rows.push([title]);
      for (const r of groups[0].rows.filter((x) => x.derived === derived)) {
        rows.push([`  ${r.label}`, ...groups.flatMap((t) => {
          const row = t.rows.find((x) => x.key === r.key)!;
          return [num(row.kappa), String(row.subjects)];
        })]);
      }
    }
    out.push(table(header, rows));
    const notes = leftOutNotes(groups);
    if (notes.length) out.push(...notes.map((n) => `  note — ${n}`));
  }

  out.push('', 'Coherence scores by group (ICMI 2023 §2.1): annotators who said coherent, laypeople vs experts');
  const gc = a.groupCoherence.filter((g) => g.responses > 0);
  if (gc.length === 0) out.push('  no response is labelled by both laypeople and experts');
  else {
    out.push(
      table(
        ['strategy', 'responses', 'mean laypeople', 'mean experts', 'share laypeople', 'share experts', 'spearman rho', 'p'],
        gc.map((g) => [g.strategy, String(g.responses), num(g.meanLaypeople), num(g.meanExperts), pct(g.meanShareLaypeople), pct(g.meanShareExperts), num(g.spearman.statistic), g.spearman.pValue === null ? '–' : g.spearman.pValue.toPrecision(3)]),
      ),
    );
  }

  const who = a.options.majorityGroup === 'all' ? 'all annotators' : a.options.majorityGroup;
  out.push('', `Coherence rate per decoding strategy (§5.2, Figure 3): majority vote of ${who}; shown with ≥ ${a.options.minResponses} majority-labelled responses`);
  const shown = a.coherenceRates.filter((r) => r.shown);
  const prop = a.propagation.enabled && a.propagation.propagatedResponses > 0;
  if (shown.length === 0) out.push('  no strategy has enough majority-labelled responses');
  else {
    out.push(
      table(
        ['strategy', 'responses', 'labelled', 'coherent', 'incoherent', 'no majority', ...(prop ? ['propagated'] : []), 'rate'],
        shown.map((r) => [r.strategy, String(r.responses), String(r.labelled), String(r.coherent), String(r.incoherent), String(r.noMajority), ...(prop ? [String(r.propagated)] : []), pct(r.rate)]),
      ),
    );
  }
  const hidden = a.coherenceRates.filter((r) => !r.shown);
  if (hidden.length) out.push(`  not shown (fewer than ${a.options.minResponses} labelled): ${hidden.map((r) => `${r.strategy} (${r.labelled})`).join(', ')}`);
  if (a.propagation.enabled && a.propagation.clusters > 0) out.push(`  cluster propagation: ${a.propagation.propagatedResponses} response(s) took their cluster representative's labels (${a.propagation.clusters} clusters)`);

  out.push('', `Most evident error per strategy (§5.3, Figure 4): majority-voted consensus-adjusted MEE with merging, over majority-incoherent responses; shown with ≥ ${a.options.minResponses}`);
  const eshown = a.errorDistribution.rows.filter((r) => r.shown);
  if (eshown.length === 0) out.push('  no strategy has enough majority-incoherent responses');
  else {
    const cats = a.errorDistribution.categories;
    out.push(table(['strategy', 'incoherent', ...cats.map((c) => c.label)], eshown.map((r) => [r.strategy, String(r.incoherent), ...cats.map((c) => `${pct(r.shares[c.key])} (${r.counts[c.key]})`)])));
  }
  const ehidden = a.errorDistribution.rows.filter((r) => !r.shown);
  if (ehidden.length) out.push(`  not shown (fewer than ${a.options.minResponses} incoherent): ${ehidden.map((r) => `${r.strategy} (${r.incoherent})`).join(', ')}`);
  return out.join('\n') + '\n';
}
