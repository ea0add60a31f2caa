/**
 * Speakers as a study names them (issue 39 item 2): a turn keeps the dataset's speaker name (`"User"`, `"A"`,
 * `"therapist"`), and only its display is looked up. The seeds' roles — therapist and client — are the MI preset's
 * display names; every other speaker is shown as the file writes it.
 */

/** The MI roles' display names (the seeds write `Therapist:` / `Client:` in prompts and tables). */
export const MI_SPEAKER_NAMES: Readonly<Record<string, string>> = { therapist: 'Therapist', client: 'Client' };

/**
 * How a speaker is shown: its display name in `names` (default: the MI roles'), else the speaker as written.
 *
 * @param speaker - a turn's `speaker`, as the file writes it
 * @param names - display names by speaker (a rubric's `speakers.names`)
 */
export function speakerDisplayName(speaker: string, names: Readonly<Record<string, string>> = MI_SPEAKER_NAMES): string {
  return Object.hasOwn(names, speaker) ? names[speaker] : speaker;
}
