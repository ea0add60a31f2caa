/**
 * The ReflectEval data model: one dialogue *item* per JSONL line.
 *
 * The on-disk format is documented in `docs/format.md` and validated by
 * `docs/dialogue-item.schema.json`. Every interface here allows unknown fields
 * (`[key: string]: unknown`): they are preserved verbatim through read → edit → write.
 */

/** Who speaks a turn. */
export type Speaker = 'therapist' | 'client';

/**
 * AnnoMI's main therapist behaviour codes (Wu et al., ICASSP 2022), as they appear in the
 * `main_therapist_behaviour` column.
 */
export type TherapistBehaviour = 'reflection' | 'question' | 'therapist_input' | 'other';

/** AnnoMI's client talk types (`client_talk_type` column). */
export type ClientTalkType = 'change' | 'neutral' | 'sustain';

/** One utterance of the dialogue context. */
export interface Turn {
  speaker: Speaker;
  text: string;
  /** Therapist behaviour or client talk type, when known. */
  behaviour?: TherapistBehaviour | ClientTalkType | string;
  /** Utterance id in the source dataset, when known. */
  utteranceId?: string;
  [key: string]: unknown;
}

/** The ground-truth therapist response that followed the context. */
export interface Reference {
  text: string;
  behaviour?: TherapistBehaviour | string;
  [key: string]: unknown;
}

/** Where an item came from. */
export interface Provenance {
  /** Dataset name, e.g. `"AnnoMI"`. */
  dataset: string;
  transcriptId?: string;
  /** Utterance id of the reference response in the source transcript. */
  utteranceId?: string;
  topic?: string;
  /** AnnoMI's `mi_quality`: `"high"` or `"low"`. */
  miQuality?: string;
  /** Source file the item was imported from (base name only). */
  sourceFile?: string;
  [key: string]: unknown;
}

/** Decoding settings of a model-generated candidate (all parameters that shaped it). */
export interface DecodingSettings {
  strategy: 'greedy' | 'beamSearch' | 'nucleusSampling' | string;
  maxNewTokens?: number;
  numBeams?: number;
  topP?: number;
  topK?: number;
  temperature?: number;
  seed?: number;
  sampleIndex?: number;
  [key: string]: unknown;
}

/** How a candidate came to exist. */
export interface CandidateOrigin {
  /** `human`: written by a person (e.g. the reference); `model`: a local model; `api`: a remote endpoint. */
  kind: 'human' | 'model' | 'api';
  /** Model folder, hub id or API model name. */
  model?: string;
  decoding?: DecodingSettings;
  /** Free-form source label, e.g. `"GPT-2"` in an imported annotation table. */
  source?: string;
  /** ISO 8601 time of creation. */
  createdAt?: string;
  [key: string]: unknown;
}

/** Error categories of the first study §4.1.3 / GEM 2022 §4. */
export type ErrorCategory =
  | 'malformed'
  | 'dialogueContradicting'
  | 'parroting'
  | 'offTopic'
  | 'onTopicButUnverifiable'
  | 'other';

/** One annotator's labels on one candidate. */
export interface Annotation {
  annotator: string;
  /** "Is the response coherent and consistent with the dialogue?" */
  coherent?: boolean;
  errors?: ErrorCategory[];
  mostEvidentError?: ErrorCategory;
  /** Free text for the `other` error category. */
  otherText?: string;
  /** ISO 8601 time of the last change. */
  updatedAt?: string;
  [key: string]: unknown;
}

/** One evaluator's result on one candidate. */
export interface Score {
  /** The parsed score, or `null` when the evaluator produced no usable value. */
  value: number | null;
  /** `ok`: value is usable; `unparsable`: the evaluator replied but no number in range was found; `error`: the call failed. */
  status: 'ok' | 'unparsable' | 'error';
  /** The raw reply of a judge, verbatim. */
  raw?: string;
  /** Probability-weighted expected score over the valid answers, when token probabilities exist. */
  expected?: number;
  /** Why the status is not `ok`. */
  message?: string;
  [key: string]: unknown;
}

/** A response candidate for the item's context. */
export interface Candidate {
  id: string;
  text: string;
  origin: CandidateOrigin;
  annotations: Annotation[];
  /** Scores keyed by evaluator id. */
  scores: Record<string, Score>;
  [key: string]: unknown;
}

/** One line of a dialogue JSONL file. */
export interface DialogueItem {
  id: string;
  /** Ordered turns preceding the response; the last one is usually the client's. */
  context: Turn[];
  reference?: Reference;
  provenance?: Provenance;
  candidates: Candidate[];
  [key: string]: unknown;
}
