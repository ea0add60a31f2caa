/**
 * The studies of a workspace, as the ReflectEval side bar and `reflect-eval studies` list them: every dialogue file
 * (`*.dialogues.jsonl`) with its labelling progress, and under it the runs and files that belong to it — judge runs
 * and generation runs (from their manifests; generated candidates without a manifest from their recorded origins),
 * label plans, reports, and team packets. A pure function of the workspace's file names and of what the caller
 * reads for it ({@link StudySources}), so it is the same in both programs and testable without a disk.
 *
 * Which study a file belongs to: a manifest names its dialogue file (`file`), looked up in the manifest's own folder
 * (else by the manifest's base name); a label plan by its base name; a report by its first line
 * (`# ReflectEval report: <file>`), in its own folder first, else the one study of that name in the workspace; a
 * team packet by its manifest's `study.file` (`reflect-eval assign` writes packets into a folder of the user's
 * choice), the same way.
 */
import { classifyFile, folderOf, nameOf, reportSubject } from './files';
import { generationRunsOf, judgeRunOf, type GenerationRunSummary, type JudgeRunSummary, type ManifestProblem } from './manifests';
import type { OriginGroup, StudyContent } from './studyContent';
import type { PacketManifest } from '../team/packets';

/**
 * `team/packets.ts` `PACKET_FORMAT`, written out so the side bar's small entry bundle does not carry the team module
 * (its type is checked against the constant's).
 */
const PACKET_FORMAT: PacketManifest['format'] = 'reflect-eval-packet';

/**
 * A team packet (issue 44, `team/packets.ts`): a dialogue file made from a study for one annotator. It is listed
 * under its study, never as a study of its own.
 */
export interface PacketSummary {
  /** The packet's path. */
  path: string;
  annotator?: string;
  /** The file that ties it to the study (the assign manifest). */
  manifest: string;
}

/**
 * A kind of file (`manifest`) that ties packets to a study. `read` gets the manifest's text and path and returns the
 * study and its packets as paths relative to the manifest's folder, or undefined when the file is not such a
 * manifest. The study is looked up in the manifest's folder, else it is the workspace's one study of that name.
 */
export interface PacketRecognizer {
  manifest: RegExp;
  read(text: string, path: string): { study: string; packets: { file: string; annotator?: string }[] } | undefined;
}

/**
 * `reflect-eval assign`'s packets (`team/packetFiles.ts`): `<study>.<annotator>.packet.json` beside its packet
 * `<study>.<annotator>.dialogues.jsonl`, its `format` `reflect-eval-packet`, its study's file name in `study.file`.
 */
export const TEAM_PACKETS: PacketRecognizer = {
  manifest: /\.packet\.json$/i,
  read(text, path) {
    let v: Partial<PacketManifest>;
    try {
      v = JSON.parse(text) as Partial<PacketManifest>;
    } catch {
      return undefined;
    }
    if (typeof v !== 'object' || v === null || v.format !== PACKET_FORMAT || typeof v.study?.file !== 'string') return undefined;
    const packet = nameOf(path).replace(/\.packet\.json$/i, '.dialogues.jsonl');
    return { study: v.study.file, packets: [{ file: packet, ...(typeof v.annotator === 'string' ? { annotator: v.annotator } : {}) }] };
  },
};

/** The packet manifests ReflectEval knows. */
export const PACKET_RECOGNIZERS: readonly PacketRecognizer[] = [TEAM_PACKETS];

/** One study and what belongs to it. */
export interface StudySummary {
  /** The dialogue file's path (`/`-separated, relative to the workspace folder). */
  path: string;
  /** Its name without `.dialogues.jsonl`. */
  name: string;
  /** What the file holds; undefined when it could not be read (`error` says why). */
  content?: StudyContent;
  error?: string;
  /** Candidates the viewing annotator labelled (null without an annotator or content). */
  mine: number | null;
  /** Judge runs, newest first. */
  judgeRuns: JudgeRunSummary[];
  /** Generation runs from the generation manifests, newest first. */
  generationRuns: GenerationRunSummary[];
  /** Generated candidates by model and strategy, from their origins, when no generation manifest records them. */
  generatedWithoutManifest: OriginGroup[];
  labelPlans: string[];
  reports: string[];
  packets: PacketSummary[];
}

/** The whole workspace. */
export interface StudyIndex {
  studies: StudySummary[];
  /** Runs and reports that name a study not in the workspace. */
  unmatched: { judgeRuns: JudgeRunSummary[]; generationRuns: GenerationRunSummary[]; reports: string[]; packets: PacketSummary[] };
  /** Manifests that could not be read as one. */
  problems: ManifestProblem[];
}

/** What {@link buildStudyIndex} asks of the disk. */
export interface StudySources {
  /** A study's content, or why it cannot be read. */
  content(path: string): StudyContent | { error: string };
  /** A small file's text (a manifest), or undefined when it cannot be read. */
  text(path: string): string | undefined;
  /** A Markdown file's first line or more, or undefined. */
  head(path: string): string | undefined;
}

const newestFirst = (a: { finishedAt?: string }, b: { finishedAt?: string }) => (b.finishedAt ?? '').localeCompare(a.finishedAt ?? '');

/**
 * Builds the index of a workspace.
 *
 * @param files - every file of the workspace (`/`-separated paths relative to its folder; order does not matter)
 * @param sources - reads what the names do not say
 * @param options.annotator - the viewing annotator (for `mine`), or null
 * @param options.packets - packet recognizers (default {@link PACKET_RECOGNIZERS})
 */
export function buildStudyIndex(files: readonly string[], sources: StudySources, options: { annotator?: string | null; packets?: readonly PacketRecognizer[] } = {}): StudyIndex {
  const annotator = options.annotator ?? null;
  const recognizers = options.packets ?? PACKET_RECOGNIZERS;
  const problems: ManifestProblem[] = [];
  const unmatched: StudyIndex['unmatched'] = { judgeRuns: [], generationRuns: [], reports: [], packets: [] };

  // Packets first: a dialogue file a packet manifest claims is not a study.
  const listed = new Set(files);
  /** Packets by the study their manifest names: `[manifest's folder, study as the manifest gives it]`. */
  const packetsByStudy = new Map<string, { dir: string; study: string; packets: PacketSummary[] }>();
  const claimed = new Set<string>();
  for (const path of files) {
    for (const r of recognizers) {
      if (!r.manifest.test(nameOf(path))) continue;
      const text = sources.text(path);
      const read = text === undefined ? undefined : r.read(text, path);
      if (!read) continue;
      const dir = folderOf(path);
      const key = JSON.stringify([dir, read.study]);
      const entry = packetsByStudy.get(key) ?? { dir, study: read.study, packets: [] };
      packetsByStudy.set(key, entry);
      for (const p of read.packets) {
        const packet: PacketSummary = { path: joinPath(dir, p.file), manifest: path, ...(p.annotator ? { annotator: p.annotator } : {}) };
        if (!listed.has(packet.path)) continue; // its dialogue file is gone: nothing to open
        claimed.add(packet.path);
        entry.packets.push(packet);
      }
    }
  }

  const byPath = new Map<string, StudySummary>();
  for (const path of files) {
    if (classifyFile(path)?.kind !== 'study' || claimed.has(path)) continue;
    const content = sources.content(path);
    const ok = 'error' in content ? undefined : content;
    byPath.set(path, {
      path,
      name: nameOf(path).replace(/\.dialogues\.jsonl$/i, ''),
      ...(ok ? { content: ok } : { error: (content as { error: string }).error }),
      mine: ok && annotator ? (ok.progress.annotators.find((a) => a.annotator === annotator)?.labelled ?? 0) : null,
      judgeRuns: [],
      generationRuns: [],
      generatedWithoutManifest: [],
      labelPlans: [],
      reports: [],
      packets: [],
    });
  }
  const byName = new Map<string, StudySummary[]>();
  for (const s of byPath.values()) byName.set(nameOf(s.path), [...(byName.get(nameOf(s.path)) ?? []), s]);

  /** The study a file in `dir` names (`name`, a dialogue file's name), else the one whose base is `base`. */
  const studyFor = (dir: string, name: string | undefined, base: string): StudySummary | undefined =>
    (name ? byPath.get(joinPath(dir, name)) : undefined) ?? byPath.get(`${base}.dialogues.jsonl`);

  for (const path of files) {
    const kind = classifyFile(path);
    if (!kind || kind.kind === 'study') continue;
    const dir = folderOf(path);
    if (kind.kind === 'judgeManifest') {
      const text = sources.text(path);
      if (text === undefined) continue;
      const run = judgeRunOf(text, path);
      if ('message' in run) problems.push(run);
      else {
        const study = studyFor(dir, run.file, kind.base);
        (study ? study.judgeRuns : unmatched.judgeRuns).push(run);
      }
    } else if (kind.kind === 'generationManifest') {
      const text = sources.text(path);
      if (text === undefined) continue;
      const runs = generationRunsOf(text, path);
      if ('message' in runs) problems.push(runs);
      else {
        const study = studyFor(dir, runs[0]?.file, kind.base);
        (study ? study.generationRuns : unmatched.generationRuns).push(...runs);
      }
    } else if (kind.kind === 'labelPlan') {
      byPath.get(`${kind.base}.dialogues.jsonl`)?.labelPlans.push(path);
    } else if (kind.kind === 'report') {
      const head = sources.head(path);
      const subject = head === undefined ? undefined : reportSubject(head);
      if (!subject) continue;
      const study = byPath.get(joinPath(dir, subject)) ?? (byName.get(subject)?.length === 1 ? byName.get(subject)![0] : undefined);
      (study ? study.reports : unmatched.reports).push(path);
    }
  }
  for (const { dir, study, packets } of packetsByStudy.values()) {
    const named = byName.get(nameOf(study));
    const owner = byPath.get(joinPath(dir, study)) ?? (!study.includes('/') && named?.length === 1 ? named[0] : undefined);
    (owner?.packets ?? unmatched.packets).push(...packets);
  }

  for (const s of byPath.values()) {
    s.judgeRuns.sort(newestFirst);
    s.generationRuns.sort(newestFirst);
    if (s.generationRuns.length === 0 && s.content) s.generatedWithoutManifest = s.content.generated;
    s.labelPlans.sort();
    s.reports.sort();
    s.packets.sort((a, b) => a.path.localeCompare(b.path));
  }
  return { studies: [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path)), unmatched, problems };
}

/** `dir/name` with `/` separators, `..` and `.` resolved (a path that leaves the workspace keeps its leading `..`). */
function joinPath(dir: string, name: string): string {
  const out: string[] = [];
  for (const part of `${dir}/${name}`.split(/[\\/]+/)) {
    if (!part || part === '.') continue;
    if (part === '..' && out.length && out[out.length - 1] !== '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

/**
 * How far a workspace is through ReflectEval's first hour (the Get Started walkthrough's steps that complete on what
 * the files show): a study exists; one has generated candidates; the viewing annotator labelled at least
 * `labelTarget` candidates of one study; one has reference-metric scores; one has judge scores.
 */
export interface FirstHourProgress {
  study: boolean;
  generated: boolean;
  labelled: boolean;
  scored: boolean;
  judged: boolean;
}

/** {@link FirstHourProgress} of an index. */
export function firstHourProgress(index: StudyIndex, labelTarget = 10): FirstHourProgress {
  const s = index.studies;
  return {
    study: s.length > 0,
    generated: s.some((x) => x.generationRuns.some((r) => r.added + r.duplicates > 0) || (x.content?.generated.length ?? 0) > 0),
    labelled: s.some((x) => (x.mine ?? 0) >= labelTarget),
    scored: s.some((x) => x.content?.evaluators.some((e) => e.kind === 'metric') ?? false),
    judged: s.some((x) => x.judgeRuns.some((r) => r.judgements > 0) || (x.content?.evaluators.some((e) => e.kind === 'judge') ?? false)),
  };
}
