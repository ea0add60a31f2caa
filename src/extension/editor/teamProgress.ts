/**
 * The team's progress in the dialogue editor's status bar (issue 44 item 5): when packets of the open study exist
 * (assigned with the CLI or the command), or at least two annotators labelled it (inline or in sidecar files), each
 * annotator's labels against their assignment and the agreement so far — in the status bar's text for the primary
 * dimension, per dimension in its tooltip — from core's `teamProgress`, the numbers `reflect-eval progress
 * [--packets]` prints (its α to the same three decimals). No `vscode` import.
 */
import { basename, dirname } from 'node:path';
import type { DialogueItem } from '../../core/dialogue/types';
import { dimensionTitle, type Rubric } from '../../core/rubric/rubric';
import { readManifests } from '../../core/team/packetFiles';
import type { PacketManifest } from '../../core/team/packets';
import { teamProgress, type TeamProgress } from '../../core/team/progress';

/**
 * The manifests of the study's packets: in the study's own folder and in the folders packets were assigned into
 * (remembered by the command), each folder once. A manifest that cannot be read is skipped here (collect names it).
 */
export function teamManifests(studyFile: string, folders: readonly string[]): { folder: string; manifests: PacketManifest[] }[] {
  const out: { folder: string; manifests: PacketManifest[] }[] = [];
  for (const folder of [...new Set([dirname(studyFile), ...folders])]) {
    try {
      const manifests = readManifests(folder, basename(studyFile)).filter((m) => m.annotator);
      if (manifests.length) out.push({ folder, manifests });
    } catch {
      // Not readable: no team line from this folder.
    }
  }
  return out;
}

/**
 * The tooltip lines of the team's progress: per annotator, labelled / assigned per dimension, and Krippendorff's α
 * per dimension where two annotators overlap (`undefined` with why, before that).
 */
export function teamStatusLines(items: readonly DialogueItem[], rubric: Rubric, folders: readonly { folder: string; manifests: PacketManifest[] }[], relative: (path: string) => string = (p) => p): string[] {
  const manifests = folders.flatMap((f) => f.manifests);
  if (manifests.length === 0) return [];
  const p = teamProgress(items, rubric, manifests);
  const title = (name: string) => {
    const d = rubric.dimensions.find((x) => x.name === name);
    return d ? dimensionTitle(d) : name;
  };
  const lines = [`Team: ${manifests.length} packet${manifests.length === 1 ? '' : 's'} (${folders.map((f) => relative(f.folder)).join(', ')})`];
  for (const a of p.annotators) lines.push(`  ${a.annotator}: ${a.labelled}/${a.assigned} · ${a.dimensions.map((d) => `${title(d.dimension)} ${d.labelled}`).join(' · ')}`);
  lines.push(...agreementLine(p, rubric));
  return lines;
}

/** What the team's status bar item shows: its text and tooltip lines. */
export interface TeamStatus {
  text: string;
  lines: string[];
}

/** α as `reflect-eval progress` prints it (three decimals), or `—` while it is undefined. */
export function alphaText(alpha: number | null): string {
  return alpha === null ? '—' : alpha.toFixed(3);
}

/**
 * The status bar text of a team's progress: each annotator's labels on the primary dimension out of their
 * assignment, then Krippendorff's α so far per dimension where it is defined (only the primary dimension's when the
 * rubric has one that agreement is computed on), e.g. `$(organization) E1 12/20 · E2 9/20 · E3 11/20 · α 0.412`.
 */
export function teamStatusText(p: TeamProgress): string {
  const who = p.annotators.map((a) => `${a.annotator} ${a.labelled}/${a.assigned}`);
  const defined = p.agreement.filter((g) => g.alpha !== null);
  const alpha = defined.length === 0 ? [] : p.agreement.length === 1 ? [`α ${alphaText(defined[0].alpha)}`] : [`α ${defined.map((g) => `${g.dimension} ${alphaText(g.alpha)}`).join(', ')}`];
  return ['$(organization)', [...who, ...alpha].join(' · ')].join(' ');
}

/**
 * The team's progress for the status bar, or undefined when there is no team to show: no packets of the study and
 * fewer than two annotators in it.
 *
 * @param items - the study's items as every job reads them (sidecars laid over)
 */
export function teamStatus(items: readonly DialogueItem[], rubric: Rubric, folders: readonly { folder: string; manifests: PacketManifest[] }[], relative: (path: string) => string = (p) => p): TeamStatus | undefined {
  const manifests = folders.flatMap((f) => f.manifests);
  const p = teamProgress(items, rubric, manifests);
  if (manifests.length === 0 && p.annotators.length < 2) return undefined;
  const lines = manifests.length ? teamStatusLines(items, rubric, folders, relative) : [`Team: ${p.annotators.length} annotators (no packets: out of every candidate)`, ...p.annotators.map((a) => `  ${a.annotator}: ${a.labelled}/${a.assigned} · ${a.dimensions.map((d) => `${dimTitle(rubric, d.dimension)} ${d.labelled}`).join(' · ')}`), ...agreementLine(p, rubric)];
  return { text: teamStatusText(p), lines };
}

function dimTitle(rubric: Rubric, name: string): string {
  const d = rubric.dimensions.find((x) => x.name === name);
  return d ? dimensionTitle(d) : name;
}

function agreementLine(p: TeamProgress, rubric: Rubric): string[] {
  const agreement = p.agreement.map((g) => `${dimTitle(rubric, g.dimension)} ${g.alpha === null ? '—' : `α ${alphaText(g.alpha)}`} (${g.overlap} shared)`);
  return agreement.length ? [`  Agreement so far (Krippendorff): ${agreement.join(' · ')}`] : [];
}
