/**
 * The agreement panel's view of one rubric dimension (issue 39 item 4, "a picker in the panels"): on a study with a
 * rubric of its own, the coefficients `reflect-eval agreement <file> --dimension <name>` prints — the rows of
 * `dimensionCoefficients` over `agreementCoefficientsBy`, per annotator group, the coefficient that fits the
 * dimension's type first (Fleiss' kappa for binary and categorical, Krippendorff's alpha at the ordinal or interval
 * level with the ICCs for ordinal and numeric) — as the text export prints them, with the unrounded numbers.
 * Pure (no `vscode`): the panel calls it, and a test compares it with the command line.
 */
import { agreementCoefficientsBy, dimensionCoefficients, type CoefficientRow } from '../core/agreement/coefficientsTable';
import type { GroupRules } from '../core/labels/groups';
import { groupedCoefficientsPlainTables, plainCellText } from '../core/metaEvaluation/metaEvaluationExport';
import type { DialogueItem } from '../core/dialogue/types';
import { dimensionNamed, type Rubric } from '../core/rubric/rubric';
import type { DimensionAgreementView, RubricDimensionChoice } from '../../webview/agreement/protocol';

/** The dimensions the picker offers: every dimension but free text, primary first as the rubric lists them. */
export function agreementDimensionChoices(rubric: Rubric): RubricDimensionChoice[] {
  return rubric.dimensions.flatMap((d) => (d.type === 'text' ? [] : [{ name: d.name, title: d.title ?? d.name, type: d.type }]));
}

/** Which coefficient fits a row's level: kappa for nominal rows, alpha for ordinal and interval ones. */
function headline(r: CoefficientRow): { name: string; value: number | null } {
  return r.level === 'nominal' ? { name: "Fleiss' kappa", value: r.fleiss.kappa } : { name: `Krippendorff's alpha (${r.level})`, value: r.alpha.alpha };
}

/**
 * The view of `dimension` (default the rubric's primary) on `items`.
 *
 * @throws Error when the rubric has no such dimension, or it is free text (as `dimensionCoefficients`)
 */
export function dimensionAgreementView(items: readonly DialogueItem[], rubric: Rubric, dimension: string | undefined, groupRules: GroupRules): DimensionAgreementView {
  const name = dimension && dimensionNamed(rubric, dimension) ? dimension : rubric.primary;
  const d = dimensionNamed(rubric, name)!;
  const g = dimensionCoefficients(agreementCoefficientsBy(items, null, { groupRules, rubric }), rubric, name);
  const plain = groupedCoefficientsPlainTables(g);
  const tables = g.groups.flatMap((p) => p.tables);
  return {
    dimension: name,
    type: d.type,
    tables: tables.map((t, i) => ({
      group: t.group,
      title: plain[i].title,
      columns: plain[i].columns,
      cells: plain[i].rows.map((row) => row.map(plainCellText)),
      notes: plain[i].notes,
      rows: t.rows.map((r) => ({
        key: r.key,
        level: r.level,
        headline: headline(r),
        kappa: r.fleiss.kappa,
        alpha: r.alpha.alpha,
        ac1: r.ac1.ac1,
        iccSingle: r.icc?.single.value ?? null,
        iccAverage: r.icc?.average.value ?? null,
      })),
    })),
  };
}
