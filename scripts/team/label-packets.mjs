#!/usr/bin/env node
/**
 * Labels team packets programmatically, as a stand-in for three people in the timed round trip of docs/team.md
 * (issue 44): for each packet `<folder>/<study>.<annotator>.dialogues.jsonl` given, every candidate gets a label of
 * the packet's annotator (read from its manifest `<study>.<annotator>.packet.json`) under the MI rubric — coherent
 * or not, the most evident error when not, empathy 1–5 when coherent. The "truth" of a candidate is a hash of its
 * text; each annotator disagrees with it on a share of candidates given by a hash of annotator and text (default
 * 0.15), so the team's agreement is high but not perfect, and the same inputs give the same labels on every run.
 * Only the label fields change: collect refuses any other change.
 *
 * Usage: node scripts/team/label-packets.mjs [--noise 0.15] <packet.dialogues.jsonl>…
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
let noise = 0.15;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--noise') noise = Number(args[++i]);
  else files.push(args[i]);
}
if (files.length === 0 || !(noise >= 0 && noise <= 1)) {
  process.stderr.write('usage: node scripts/team/label-packets.mjs [--noise 0..1] <packet.dialogues.jsonl>…\n');
  process.exit(2);
}

/** A number in [0, 1) from a hash of the parts. */
const unit = (...parts) => createHash('sha256').update(parts.join('\u0000')).digest().readUInt32BE(0) / 2 ** 32;

for (const file of files) {
  const manifest = JSON.parse(readFileSync(file.replace(/\.dialogues\.jsonl$/, '.packet.json'), 'utf8'));
  const who = manifest.annotator;
  const text = readFileSync(file, 'utf8');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let labelled = 0;
  const out = text.split(eol).map((line) => {
    if (!line.trim()) return line;
    const item = JSON.parse(line);
    if (!Array.isArray(item.candidates)) return line;
    for (const c of item.candidates) {
      const truth = unit('coherent', c.text) < 0.7;
      const flip = unit('flip', who, c.text) < noise;
      const coherent = flip ? !truth : truth;
      const empathy = Math.min(5, Math.max(1, 1 + Math.floor(unit('empathy', c.text) * 5) + (unit('shift', who, c.text) < noise ? 1 : 0)));
      const annotation = coherent ? { annotator: who, coherent, empathy } : { annotator: who, coherent, errors: ['offTopic'], mostEvidentError: 'offTopic' };
      c.annotations = [...(c.annotations ?? []).filter((a) => a.annotator !== who), annotation];
      labelled++;
    }
    return JSON.stringify(item);
  });
  writeFileSync(file, out.join(eol));
  process.stdout.write(`${file}: ${labelled} candidates labelled as ${who}\n`);
}
