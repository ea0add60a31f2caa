/**
 * Built-in rubrics. The MI preset is the seeds' scheme (first study §4.1.3 and §4.2.3; ACL 2023 §3; ICMI 2023
 * §2.1): "Is the response coherent and consistent with the dialogue?"; if not, which errors (one or more) and the
 * most evident one; if so, agreement with the MI empathy statement on a 5-point Likert scale. Its dimensions are the
 * annotation fields ReflectEval has always written, so a file without a rubric of its own opens, labels and
 * analyses exactly as before.
 */
import { MI_SPEAKER_NAMES } from '../dialogue/speakers';
import type { Rubric } from './rubric';

/** The preset's name, as a rubric file writes it to extend it (`"preset": "mi-acl2023"`). */
export const MI_PRESET = 'mi-acl2023';

/**
 * The MI preset: `coherent` (binary, primary), `errors` (multi-select of the six categories with the most evident
 * one in `mostEvidentError`, asked when incoherent), `otherText` (the "Other" error's text, when `other` is chosen)
 * and `empathy` (1–5, asked when coherent), with the editor's keys of docs/labelling.md.
 */
export const MI_RUBRIC: Rubric = {
  version: 1,
  name: MI_PRESET,
  description: 'Coherence and consistency, error categories with the most evident error, and MI empathy (Wu et al., GEM 2022 §4; ACL 2023 §3).',
  primary: 'coherent',
  speakers: { respondent: 'therapist', names: { ...MI_SPEAKER_NAMES } },
  dimensions: [
    {
      name: 'coherent',
      type: 'binary',
      title: 'Coherence',
      question: 'Is the response coherent and consistent with the dialogue?',
      labels: { yes: 'Coherent', no: 'Incoherent' },
      keys: { yes: 'y', no: 'n' },
    },
    {
      name: 'errors',
      type: 'multiSelect',
      title: 'Errors',
      question: 'Which errors does the response make?',
      when: { dimension: 'coherent', equals: false },
      options: [
        { value: 'malformed', label: 'Malformed', key: '1' },
        { value: 'dialogueContradicting', label: 'Dialogue-contradicting', key: '2' },
        { value: 'parroting', label: 'Parroting', key: '3' },
        { value: 'offTopic', label: 'Off-topic', key: '4' },
        { value: 'onTopicButUnverifiable', label: 'On-topic but unverifiable', key: '5' },
        { value: 'other', label: 'Other', key: '6' },
      ],
      mostEvident: { name: 'mostEvidentError', title: 'Most evident error' },
    },
    {
      name: 'otherText',
      type: 'text',
      title: 'Other error',
      question: 'Describe the other error.',
      when: { dimension: 'errors', includes: 'other' },
    },
    {
      name: 'empathy',
      type: 'ordinal',
      title: 'Empathy',
      question: 'The response shows empathy for the client.',
      when: { dimension: 'coherent', equals: true },
      points: [
        { value: 1, label: 'disagree', key: '1' },
        { value: 2, label: 'somewhat disagree', key: '2' },
        { value: 3, label: 'neither agree nor disagree', key: '3' },
        { value: 4, label: 'somewhat agree', key: '4' },
        { value: 5, label: 'agree', key: '5' },
      ],
    },
  ],
};

/** Built-in rubrics by name. */
export const PRESETS: Readonly<Record<string, Rubric>> = { [MI_PRESET]: MI_RUBRIC };
