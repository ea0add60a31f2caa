// Builds data/annotations/synthetic-annotations.csv: a seeded, synthetic annotation table in the long layout of
// the Wu et al. ACL 2023 laypeople-vs-experts release (one row per reflection × annotator), for the tests, the
// parity script and the docs. We do not have the real release; this imitates its shape:
//
//   node scripts/data/make_annotation_table.mjs        (no arguments; same output every run)
//
// - 12 contexts: one AnnoMI reflection target in each of the first 12 high-quality dialogues of
//   data/annomi/AnnoMI-sample.csv that have one, with up to 3 turns (300 characters, but always the last 2) before it (AnnoMI is public domain; the
//   release's contexts are longer, ~14 turns, but every row repeats its context, so we keep the file small).
// - Two stages, as in the release: "GPT-2 stage" (the human reflection + 6 GPT-2-like ones) and "GPT-3 stage"
//   (the human reflection + 7 GPT-3-like ones). The synthetic reflections are made from the context by templates:
//   GPT-3-like ones are mostly fluent reflections of the client's last words; GPT-2-like ones are often
//   malformed, parroting, off-topic (taken from another dialogue), on-topic but unverifiable (an invented
//   detail) or dialogue-contradicting (negated), sometimes with two errors.
// - Each response is labelled by 3 of 9 laypeople ("Layperson 1".."Layperson 9") and 3 of 9 experts
//   ("Expert 1".."Expert 9"), drawn per context and stage, so rater sets differ between subjects. Annotators err
//   with a probability that is higher for laypeople and for borderline responses, which gives realistic
//   disagreements and 3–3 ties.
// - Columns: the release's 12, then the first study's labels the release lacks — `most_evident_error` (filled
//   only when an annotator chose several errors, as in the first study's form) and `empathy` (1–5, only when
//   coherent) — and two columns ReflectEval does not know, `batch` (per context) and `seconds_spent` (per row),
//   to show that unknown columns are kept.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import seedrandom from 'seedrandom';

const rng = seedrandom('reflect-eval synthetic annotations v1');
const rand = () => rng();
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const chance = (p) => rand() < p;
const sample = (xs, k) => {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, k);
};
const normal = () => {
  const u = 1 - rand();
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
};

// --- AnnoMI contexts -------------------------------------------------------------------------------------------
const rows = parse(readFileSync('data/annomi/AnnoMI-sample.csv', 'utf8'), { bom: true, columns: true });
const dialogues = new Map();
for (const r of rows) {
  if (r.mi_quality !== 'high') continue;
  if (!dialogues.has(r.transcript_id)) dialogues.set(r.transcript_id, []);
  dialogues.get(r.transcript_id).push(r);
}
for (const d of dialogues.values()) d.sort((a, b) => Number(a.utterance_id) - Number(b.utterance_id));
const CONTEXT_TURNS = 3;
const CONTEXT_CHARS = 300;
const contexts = [];
for (const [id, utts] of [...dialogues].sort((a, b) => Number(a[0]) - Number(b[0]))) {
  // reflections that follow a client turn with something to reflect on
  const targets = utts
    .map((u, i) => ({ u, i }))
    .filter(({ u, i }) => u.main_therapist_behaviour === 'reflection' && i >= 3 && utts[i - 1].interlocutor === 'client' && utts[i - 1].utterance_text.length > 25);
  if (targets.length === 0) continue;
  const { i } = pick(targets);
  // the last CONTEXT_TURNS turns, fewer when they exceed CONTEXT_CHARS (at least the last two)
  let from = i - 2;
  let chars = utts[i - 1].utterance_text.length + utts[i - 2].utterance_text.length;
  while (from > 0 && i - from < CONTEXT_TURNS && chars + utts[from - 1].utterance_text.length <= CONTEXT_CHARS) chars += utts[--from].utterance_text.length;
  contexts.push({ id, turns: utts.slice(from, i).map((u) => ({ speaker: u.interlocutor, text: u.utterance_text })), human: utts[i].utterance_text });
}
if (contexts.length < 12) throw new Error(`expected at least 12 contexts, got ${contexts.length}`);
contexts.splice(12);

// --- synthetic reflections --------------------------------------------------------------------------------------
const SECOND_PERSON = [
  [/\bI'm\b/g, "you're"], [/\bI am\b/g, 'you are'], [/\bI've\b/g, "you've"], [/\bI'd\b/g, "you'd"], [/\bI'll\b/g, "you'll"],
  [/\bI was\b/g, 'you were'], [/\bI\b/g, 'you'], [/\bmy\b/gi, 'your'], [/\bme\b/gi, 'you'], [/\bmyself\b/gi, 'yourself'], [/\bmine\b/gi, 'yours'],
];
const secondPerson = (s) => SECOND_PERSON.reduce((t, [re, to]) => t.replace(re, to), s);
const FILLERS = /^(?:(?:well|yeah|yes|no|um|uh|so|okay|oh|hmm|mm-hmm|i mean|like)[,.!]?\s+)+/i;
function gist(turns) {
  const client = [...turns].reverse().find((t) => t.speaker === 'client' && t.text.length > 25) ?? turns[turns.length - 1];
  const sentences = client.text.split(/(?<=[.?!])\s+/).map((s) => s.replace(FILLERS, '').trim()).filter((s) => s.split(' ').length >= 4);
  const s = (sentences[0] ?? client.text).replace(/[.?!]+$/, '');
  const t = secondPerson(s);
  return { client: client.text, g: t.charAt(0).toLowerCase() + t.slice(1) };
}
const GOOD = [
  (g) => `It sounds like ${g}.`,
  (g) => `So ${g}, and that has been on your mind.`,
  (g) => `You're saying that ${g}.`,
  (g) => `It seems like ${g}, and you're not sure what to do about it yet.`,
  (g) => `So for you, ${g}.`,
  (g) => `On one hand, ${g}, and on the other hand you want things to change.`,
];
const DETAILS = [', especially since your divorce last year', ' ever since you lost your job at the factory', ', and your sister has been telling you the same thing', ' because your doctor warned you about your liver', ' after everything that happened at your wedding'];
const negate = (g) => g.replace(/\b(you're|you are|you've|you have|you)\b/, (m) => ({ "you're": "you're not", 'you are': 'you are not', "you've": "you haven't", 'you have': "you don't have", you: "you don't" })[m]);
function malformed(g) {
  const words = g.split(' ');
  const cut = words.slice(0, Math.max(3, Math.floor(words.length * (0.4 + 0.4 * rand()))));
  const k = Math.floor(rand() * cut.length);
  cut.splice(k, 0, cut[k], pick(['uh,', 'the the', 'you-you', 'um—']));
  return `So, ${cut.join(' ')}${pick(['—', ' and and', ', uh', ''])}`;
}
function reflection(kind, ctx, other) {
  const { client, g } = gist(ctx.turns);
  switch (kind) {
    case 'good':
      return pick(GOOD)(g);
    case 'malformed':
      return malformed(g);
    case 'parroting':
      return chance(0.5) ? `So, ${client.replace(FILLERS, '')}` : `Mm-hmm. ${client}`;
    case 'offTopic':
      return pick(GOOD)(gist(other.turns).g);
    case 'onTopicButUnverifiable':
      return `${pick(GOOD)(g).replace(/\.$/, '')}${pick(DETAILS)}.`;
    case 'dialogueContradicting':
      return pick(GOOD)(negate(g));
    default:
      throw new Error(kind);
  }
}
// true label of a synthetic response: [] (coherent) or its errors, most evident first
const ERRORS = ['malformed', 'parroting', 'offTopic', 'onTopicButUnverifiable', 'dialogueContradicting'];
function gpt2Truth() {
  if (chance(0.42)) return [];
  const main = pick(['malformed', 'malformed', 'parroting', 'parroting', 'offTopic', 'onTopicButUnverifiable', 'dialogueContradicting']);
  return chance(0.25) ? [main, pick(ERRORS.filter((e) => e !== main))] : [main];
}
function gpt3Truth() {
  if (chance(0.8)) return [];
  return [pick(['onTopicButUnverifiable', 'onTopicButUnverifiable', 'dialogueContradicting', 'parroting', 'offTopic'])];
}
function text(truth, ctx, other) {
  const main = truth[0] ?? 'good';
  let t = reflection(main, ctx, other);
  if (truth[1] === 'malformed') t = malformed(t.replace(/[.]$/, ''));
  else if (truth[1] === 'onTopicButUnverifiable') t = `${t.replace(/\.$/, '')}${pick(DETAILS)}.`;
  return t;
}

// --- annotators ----------------------------------------------------------------------------------------------------
const EXPERTS = Array.from({ length: 9 }, (_, i) => `Expert ${i + 1}`);
const LAYPEOPLE = Array.from({ length: 9 }, (_, i) => `Layperson ${i + 1}`);
const bias = new Map([...EXPERTS, ...LAYPEOPLE].map((a) => [a, normal() * 0.6]));
const CONFUSED = { offTopic: 'onTopicButUnverifiable', onTopicButUnverifiable: 'dialogueContradicting', dialogueContradicting: 'onTopicButUnverifiable', parroting: 'malformed', malformed: 'parroting' };
const LABEL = { malformed: 'Malformed', parroting: 'Parroting', offTopic: 'Off-topic', onTopicButUnverifiable: 'On-topic but unverifiable', dialogueContradicting: 'Dialogue-contradicting' };

function annotate(annotator, expert, truth, borderline, quality) {
  const acc = borderline ? 0.62 : expert ? 0.92 : 0.8;
  const incoherent = truth.length ? chance(acc) : !chance(acc);
  if (!incoherent) {
    const e = Math.round(quality + bias.get(annotator) + normal() * 0.8);
    return { coherent: true, errors: [], mee: '', empathy: Math.min(5, Math.max(1, e)) };
  }
  let errors;
  let mee;
  if (truth.length === 0) {
    errors = [pick(['onTopicButUnverifiable', 'onTopicButUnverifiable', 'malformed', 'dialogueContradicting', 'parroting'])];
  } else {
    const main = chance(expert ? 0.85 : 0.72) ? truth[0] : CONFUSED[truth[0]];
    errors = [main];
    for (const e of truth.slice(1)) if (chance(0.6) && !errors.includes(e)) errors.push(e);
    if (chance(0.15)) {
      const extra = pick(ERRORS);
      if (!errors.includes(extra)) errors.push(extra);
    }
    mee = main;
  }
  if (errors.length > 1 && (!mee || chance(0.2))) mee = pick(errors);
  return { coherent: false, errors, mee: errors.length > 1 ? mee : '', empathy: '' };
}

// --- the table -----------------------------------------------------------------------------------------------------
const pyString = (s) => JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const contextJson = (turns) => `[${turns.map((t) => `{${pyString(t.speaker)}: ${pyString(t.text)}}`).join(', ')}]`;
const yesNo = (b) => (b ? 'Yes' : 'No');
const header = [
  'annomi_dialogue_id', 'stage', 'dialogue_context', 'reflection_source', 'reflection', 'annotator', 'coherent_and_context_consistent',
  'dialogue_contradicting', 'malformed', 'off_topic', 'on_topic_but_unverifiable', 'parroting', 'most_evident_error', 'empathy', 'batch', 'seconds_spent',
];
const out = [header];
let batch = 0;
for (const stage of ['GPT-2 stage', 'GPT-3 stage']) {
  for (const ctx of contexts) {
    batch++;
    const other = pick(contexts.filter((c) => c !== ctx));
    const responses = [{ source: 'Human', text: ctx.human, truth: chance(0.12) ? [pick(['malformed', 'onTopicButUnverifiable'])] : [], quality: 4.1 }];
    const seen = new Set([ctx.human]);
    const [source, n, truthOf, quality] = stage === 'GPT-2 stage' ? ['GPT-2', 6, gpt2Truth, 3.1] : ['GPT-3', 7, gpt3Truth, 3.8];
    while (responses.length < n + 1) {
      const truth = truthOf();
      const t = text(truth, ctx, other);
      if (seen.has(t)) continue;
      seen.add(t);
      responses.push({ source, text: t, truth, quality });
    }
    const annotators = [...sample(LAYPEOPLE, 3), ...sample(EXPERTS, 3)];
    for (const r of sample(responses, responses.length)) {
      const borderline = chance(0.2);
      for (const a of annotators) {
        const l = annotate(a, a.startsWith('Expert'), r.truth, borderline, r.quality);
        const err = (e) => (l.coherent ? '' : yesNo(l.errors.includes(e)));
        out.push([
          ctx.id, stage, contextJson(ctx.turns), r.source, r.text, a, yesNo(l.coherent),
          err('dialogueContradicting'), err('malformed'), err('offTopic'), err('onTopicButUnverifiable'), err('parroting'),
          l.mee ? LABEL[l.mee] : '', String(l.empathy), `B${String(batch).padStart(2, '0')}`, String(8 + Math.floor(rand() * 60)),
        ]);
      }
    }
  }
}
mkdirSync('data/annotations', { recursive: true });
writeFileSync('data/annotations/synthetic-annotations.csv', stringify(out));
console.log(`wrote ${out.length - 1} rows (${contexts.length} contexts × 2 stages) to data/annotations/synthetic-annotations.csv`);
