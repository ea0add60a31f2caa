/**
 * The files ReflectEval keeps beside a dialogue file — the judge manifest, the prompt search report, the labelling
 * plan's record, the Markdown report, an exported annotation table — are named after it: its name without
 * `.dialogues.jsonl` (or `.jsonl`), then their own suffix. Both programs and every job name them here, so the CLI
 * and the editor find each other's files. Pure string work (no `node:fs`): a VS Code URI's path works as well as a
 * file system path.
 */

/** `.dialogues.jsonl` or `.jsonl` at the end of a name, in any case. */
const DIALOGUE_SUFFIX = /(\.dialogues)?\.jsonl$/i;

/**
 * The name of the file beside a dialogue file that carries `suffix`: `study.dialogues.jsonl` + `.judge-manifest.json`
 * → `study.judge-manifest.json`; `study.jsonl` → `study.judge-manifest.json`; a name without either ending keeps it
 * whole (`notes.txt` → `notes.txt.judge-manifest.json`).
 *
 * @param dialogueFile - a path (absolute, relative, or a URI's path) or a bare file name; its folder is kept
 * @param suffix - what follows the base name, with its leading dot (`.label-plan.json`, `.report.md`)
 */
export function siblingFile(dialogueFile: string, suffix: string): string {
  return dialogueFile.replace(DIALOGUE_SUFFIX, '') + suffix;
}

/**
 * The dialogue file a dataset is imported into unless the user says otherwise: the dataset's name with its
 * extension (`.csv`, `.tsv`, `.txt`, `.jsonl`, `.ndjson`, `.json`, any case) replaced by `.dialogues.jsonl` —
 * `AnnoMI-simple.csv` → `AnnoMI-simple.dialogues.jsonl`.
 */
export function importedDialogueFile(datasetFile: string): string {
  return datasetFile.replace(/\.(csv|tsv|txt|jsonl|ndjson|json)$/i, '') + '.dialogues.jsonl';
}
