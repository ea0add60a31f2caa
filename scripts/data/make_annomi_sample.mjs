// Builds data/annomi/AnnoMI-sample.csv, the AnnoMI subset committed for the offline demo and the tests.
//
//   node scripts/data/make_annomi_sample.mjs [path/to/AnnoMI-simple.csv]   (default ../shared/data/AnnoMI-simple.csv)
//
// Kept: the 15 high-quality dialogues the bundled model held out from training (listed in
// fixtures/models/reflect-gpt2-tiny/reflect_eval_fixture.json), so the demo's 15 contexts are all unseen by
// it, plus the 3 lowest-numbered low-quality dialogues (so quality filters have something to filter).
// Rows are copied unchanged, in file order.
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';

const src = process.argv[2] ?? '../shared/data/AnnoMI-simple.csv';
const fixture = JSON.parse(readFileSync('fixtures/models/reflect-gpt2-tiny/reflect_eval_fixture.json', 'utf8'));
const heldOut = fixture.heldOutTranscriptIds.map(String);
const rows = parse(readFileSync(src, 'utf8'), { bom: true });
const header = rows[0];
const col = (name) => header.indexOf(name);
const quality = new Map();
for (const r of rows.slice(1)) quality.set(r[col('transcript_id')], r[col('mi_quality')]);
const byNumber = (a, b) => Number(a) - Number(b);
const low = [...quality].filter(([, q]) => q === 'low').map(([t]) => t).sort(byNumber);
const keep = new Set(heldOut);
for (const t of low.slice(0, 3)) keep.add(t);
const out = [header, ...rows.slice(1).filter((r) => keep.has(r[col('transcript_id')]))];
writeFileSync('data/annomi/AnnoMI-sample.csv', stringify(out));
console.log(`kept ${keep.size} dialogues (${heldOut.length} held out by the bundled model), ${out.length - 1} rows`);
