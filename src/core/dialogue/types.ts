/**
 * The ReflectEval data model: one dialogue *item* per JSONL line.
 *
 * The on-disk format is documented in `docs/format.md` and validated by
 * `docs/dialogue-item.schema.json`. Every interface here allows unknown fields
 * (`[key: string]: unknown`): they are preserved verbatim through read → edit → write.
 */

/**
 * Who speaks a turn, as the dataset names them (`therapist`, `client`, `User`, `System`, …). The MI roles are
 * `therapist` and `client`; how a speaker is shown is looked up by `speakerDisplayName` (`./speakers.ts`).
 */
export type Speaker = string;

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

/**
 * Decoding settings of a model-generated candidate: every parameter that shaped it, so the candidate can be
 * produced again (GEM 2022 §3.4; names follow Hugging Face transformers' `GenerationConfig` in camelCase).
 */
export interface DecodingSettings {
  strategy: 'greedy' | 'beamSearch' | 'nucleusSampling' | string;
  maxNewTokens?: number;
  /** Beam search: beams kept per step (k). */
  numBeams?: number;
  /** Beam search: rank of this hypothesis among the k finished ones (0 = best score). */
  beamRank?: number;
  /** Beam search: the hypothesis score, sum of token log-probabilities / length^lengthPenalty. */
  beamScore?: number;
  lengthPenalty?: number;
  /** Beam search stopping rule, as transformers' `early_stopping`: true, false, or "never". */
  earlyStopping?: boolean | 'never';
  /** Nucleus sampling: smallest token set whose probability reaches topP, in (0, 1]. */
  topP?: number;
  /** Keep only the k most probable tokens (0 = off). */
  topK?: number;
  temperature?: number;
  noRepeatNgramSize?: number;
  repetitionPenalty?: number;
  /** Seed of the sampler (sampling strategies). */
  seed?: number;
  /** Which of the n samples drawn under these settings (0-based). */
  sampleIndex?: number;
  /** Response type conditioned on (control code; GEM 2022 footnote 4). */
  behaviour?: string;
  /** Context window in tokens (GEM 2022 §3.2: 384). */
  maxContextTokens?: number;
  [key: string]: unknown;
}

/** How a candidate came to exist. */
export interface CandidateOrigin {
  /**
   * `human`: written by a person (e.g. the reference); `model`: a local model; `api`: a remote endpoint; `hidden`:
   * withheld from an annotator (a blind packet, `src/core/team/packets.ts`).
   */
  kind: 'human' | 'model' | 'api' | 'hidden';
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

/**
 * Agreement with the MI empathy statement (first study §4.2.3), asked only when the response is coherent:
 * 1 disagree, 2 somewhat disagree, 3 neither agree nor disagree, 4 somewhat agree, 5 agree.
 */
export type LikertAgreement = 1 | 2 | 3 | 4 | 5;

/**
 * Labels an annotator gave that do not apply to their current coherence answer (errors, MEE and `otherText`
 * while coherent; empathy while incoherent; all while unanswered). The editor keeps them here instead of
 * dropping them, and restores them when the answer flips back (`src/core/labels/annotate.ts`). Analyses ignore
 * them.
 */
export interface StashedLabels {
  errors?: ErrorCategory[];
  mostEvidentError?: ErrorCategory;
  otherText?: string;
  empathy?: LikertAgreement;
}

/** One annotator's labels on one candidate (first study §4.2.3). */
export interface Annotation {
  annotator: string;
  /** Annotator group, e.g. `expert` or `layperson`, when known (imported tables); otherwise derived from the id. */
  group?: string;
  /** "Is the response coherent and consistent with the dialogue?" */
  coherent?: boolean;
  /** Errors chosen when incoherent (one or more). */
  errors?: ErrorCategory[];
  /** The most evident error (MEE), chosen among `errors` when there are several. */
  mostEvidentError?: ErrorCategory;
  /** Free text for the `other` error category. */
  otherText?: string;
  /** Empathy statement agreement, when coherent. */
  empathy?: LikertAgreement;
  /** Labels set aside because they do not apply to the current coherence answer (see {@link StashedLabels}). */
  stashed?: StashedLabels;
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
  /** Signature of the evaluator's configuration (metrics: tokenizer, smoothing, stemming, versions; sacreBLEU style). */
  signature?: string;
  [key: string]: unknown;
}

/**
 * Semantic cluster of a candidate within its item (first study §4.2.1): candidates whose sentence embeddings
 * fall in one agglomerative cluster; the member with the most tokens represents it.
 */
export interface ClusterInfo {
  /** Cluster id, unique within the item. */
  id: string;
  /** True for the cluster's representative (the member with the most tokens). */
  representative: boolean;
  /** Number of candidates in the cluster. */
  size: number;
  /** True when the representative was drawn in the seeded sample of clusters to annotate. */
  sampled?: boolean;
  /** Signature of the clustering (embedding model, pooling, threshold, linkage, metric, seed). */
  signature?: string;
  [key: string]: unknown;
}

/** A response candidate for the item's context. */
export interface Candidate {
  id: string;
  text: string;
  /** How the candidate first came to exist. */
  origin: CandidateOrigin;
  /**
   * Further origins that produced exactly the same text in this item (an exact duplicate is kept once with all
   * its origins; the first study removes duplicates before annotation, §4.1.1).
   */
  duplicateOrigins?: CandidateOrigin[];
  /** Semantic cluster, when the item's candidates were clustered. */
  cluster?: ClusterInfo;
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

/** Every origin of a candidate: its first origin, then those of its exact duplicates. */
export function candidateOrigins(candidate: Candidate): CandidateOrigin[] {
  return [candidate.origin, ...(candidate.duplicateOrigins ?? [])];
}
