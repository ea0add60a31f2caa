#!/usr/bin/env bash
# Reproduces the figures of docs/labelling-plan.md: working files made with the CLI, then plan-labels --simulate
# (200 runs per design) for each shipped metric and the local judge, on the EvalReflections GPT-2 stage (real
# expert labels) and on the synthetic table, plus the decision rule on two equal-quality evaluators; then the
# design-only bound (plan-labels --bound) for the same pools.
# Usage: bash scripts/planning/evaluate.sh [work dir, default /tmp/reflect-eval-plan-eval]
# (Working files already in the work dir are reused; judging takes a few minutes per file.)
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-/tmp/reflect-eval-plan-eval}
mkdir -p "$W/results" "$W/bounds"
npm run build >/dev/null
CLI="node dist/cli.js"
prepare() { # name csv
  local f="$W/$1.dialogues.jsonl"
  if [ ! -f "$f" ]; then
    $CLI import annotations "$2" --reference -o "$f"
    $CLI score "$f"
    $CLI judge "$f"
  fi
  [ -f "$W/$1-pair.dialogues.jsonl" ] || npx tsx scripts/planning/addNoisyCopies.ts "$f" "$W/$1-pair.dialogues.jsonl" 1 1
}
prepare er /work/shared/data/evalreflections/annotations-gpt2-stage.csv
prepare syn data/annotations/synthetic-annotations.csv
for name in er syn; do
  for ev in BLEU-4 ROUGE-L METEOR judge:local; do
    tag=$(echo "$ev" | tr -c 'A-Za-z0-9\n' '_')
    $CLI plan-labels "$W/$name.dialogues.jsonl" --evaluator "$ev" --human experts --simulate --seeds 200 --target 0.15 0.1 --format json > "$W/results/$name-$tag.json"
    $CLI plan-labels "$W/$name.dialogues.jsonl" --evaluator "$ev" --human experts --bound --target 0.15 0.1 --format json > "$W/bounds/$name-$tag.json"
    $CLI plan-labels "$W/$name.dialogues.jsonl" --evaluator "$ev" --human experts --bound --target 0.15 0.1 --assist human:laypeople --format json > "$W/bounds/$name-$tag-assisted-by-laypeople.json"
  done
  $CLI plan-labels "$W/$name-pair.dialogues.jsonl" --evaluator metric:noisyCopyA --against metric:noisyCopyB --human experts --bound --target 0.15 0.1 --format json > "$W/bounds/$name-pair.json"
  $CLI plan-labels "$W/$name-pair.dialogues.jsonl" --evaluator metric:noisyCopyA --against metric:noisyCopyB --human experts --simulate --seeds 200 --target 0.15 0.1 --format json > "$W/results/$name-pair.json"
done
node -e '
const fs = require("fs"); const dir = process.argv[1];
for (const f of fs.readdirSync(dir).sort()) {
  const r = JSON.parse(fs.readFileSync(dir + "/" + f, "utf8"));
  const t = r.targets.map((t) => `h=${t.halfWidth}: planner ${t.planner.toFixed(1)} random ${t.random.toFixed(1)} (${(100 * (1 - t.planner / t.random)).toFixed(0)} % fewer) plain ${t.randomPlain.toFixed(1)}; cov ${t.plannerCoverage.toFixed(3)}/${t.randomCoverage.toFixed(3)}`).join(" | ");
  console.log(`${f}: pool ${r.pool}, value ${r.poolValue.toFixed(3)}; ${t}; coverage ${r.coverage.toFixed(3)}${r.decision ? `; decision planner ${r.decision.planner.toFixed(1)} random ${r.decision.random.toFixed(1)} wrong ${r.decision.plannerWrong.toFixed(3)}/${r.decision.randomWrong.toFixed(3)}` : ""}`);
}' "$W/results"
node -e '
const fs = require("fs"); const dir = process.argv[1];
for (const f of fs.readdirSync(dir).sort()) {
  const r = JSON.parse(fs.readFileSync(dir + "/" + f, "utf8"));
  const t = r.targets.map((t) => `h=${t.halfWidth}: random ${t.random.toFixed(1)} best design ${t.neyman.toFixed(1)} (${(100 * t.saving).toFixed(1)} % fewer)`).join(" | ");
  console.log(`bound ${f}: pool ${r.pool}, value ${r.poolValue.toFixed(3)}; model b=${r.model.bandwidth} prior=${r.model.prior} (log score ${r.logScore.toFixed(3)} vs ${r.marginalLogScore.toFixed(3)}); ${t}; largest ${(100 * r.maxSaving.saving).toFixed(1)} %`);
}' "$W/bounds"
