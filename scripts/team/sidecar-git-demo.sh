#!/usr/bin/env bash
# Three annotators label one study in parallel on three git branches and merge without a conflict (issue 44 item 4;
# docs/team.md, "A team in git"). The study keeps each annotator's labels in a sidecar file of their own
# (`<study>.labels/<annotator>.jsonl`), so each branch changes files no other branch touches.
#
#   bash scripts/team/sidecar-git-demo.sh [study.dialogues.jsonl] [work folder]
#
# Default study: the demo's (demo/evalreflections.dialogues.jsonl, made by `npm run demo`), else the synthetic
# EvalReflections fixture. Needs `npm run build` (dist/cli.js). Prints each step, `git log --graph` and the team's
# progress; exits non-zero if a merge conflicts or the study file's bytes change.
set -euo pipefail
repo_root=$(cd "$(dirname "$0")/../.." && pwd)
cli=(node "$repo_root/dist/cli.js")
study_src=${1:-}
if [[ -z $study_src ]]; then
  if [[ -f demo/evalreflections.dialogues.jsonl ]]; then study_src=demo/evalreflections.dialogues.jsonl; else study_src=$repo_root/test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl; fi
fi
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/reflect-eval-team-git-XXXXXX")}
mkdir -p "$work"
study_src=$(cd "$(dirname "$study_src")" && pwd)/$(basename "$study_src")
cd "$work"
export GIT_AUTHOR_DATE='2026-12-04T12:00:00Z' GIT_COMMITTER_DATE='2026-12-04T12:00:00Z'
g() { git -c user.name="$1" -c user.email="$1@example.org" "${@:2}"; }
step() { printf '\n$ %s\n' "$*"; "$@"; }

git init -q -b main .
cp "$study_src" study.dialogues.jsonl
# The labels folder is the opt-in: collect writes each annotator's labels into their own sidecar.
mkdir study.labels
printf '# Labels of study.dialogues.jsonl\n\nOne file per annotator, read as if inline (docs/format.md, "Labels in sidecar files").\n' > study.labels/README.md
step "${cli[@]}" assign study.dialogues.jsonl --annotators A1,A2,A3 -k 2 --seed 44 -o packets
before=$(sha256sum study.dialogues.jsonl | cut -d' ' -f1)
g lead add -A && g lead commit -qm "Study with a labels folder; packets for A1, A2, A3 (k = 2)"

for who in A1 A2 A3; do
  g "$who" checkout -q -b "label-$who" main
  step node "$repo_root/scripts/team/label-packets.mjs" "packets/study.$who.dialogues.jsonl"
  printf '\n$ reflect-eval collect study.dialogues.jsonl packets/study.%s.dialogues.jsonl | tail -n 1\n' "$who"
  "${cli[@]}" collect study.dialogues.jsonl "packets/study.$who.dialogues.jsonl" | tail -n 1
  g "$who" add -A && g "$who" commit -qm "labels of my packet"
  printf '%s changed: %s\n' "$who" "$(git diff --name-only main | tr '\n' ' ')"
done

g lead checkout -q main
for who in A1 A2 A3; do printf '\n$ git merge --no-ff label-%s\n' "$who"; g lead merge --no-ff -q -m "Merge $who's labels" "label-$who"; done
after=$(sha256sum study.dialogues.jsonl | cut -d' ' -f1)
[[ $before == "$after" ]] || { echo "the study file changed: $before → $after" >&2; exit 1; }
printf '\nstudy.dialogues.jsonl unchanged (sha256 %s); no merge conflict\n' "${after:0:16}"
step git log --graph --format='%h %an: %s' --all
step "${cli[@]}" progress study.dialogues.jsonl --packets packets
