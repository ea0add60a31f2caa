#!/usr/bin/env node
/**
 * A loopback OpenAI-compatible stub that answers error-category requests with fixed surface heuristics — NOT a judge,
 * a deterministic stand-in to exercise `judge --config` with the `error-categories` request and
 * `agreement --errors-vs` on real labels without an API (docs/judging.md). Usage:
 *   node scripts/stub-error-judge.mjs 8123   # then baseURL http://127.0.0.1:8123/v1
 * Rules on the response R and the dialogue context C (lower-cased word tokens):
 *   Malformed   R has fewer than 4 words, starts with "-", or does not end in . ? ! or a quote;
 *   Parroting   ≥ 50% of R's word trigrams occur in C;
 *   Off-topic   < 15% of R's words of 4+ letters occur in C.
 * The most evident error is the first that applies in that order; the rationale quotes R.
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 8123);
const words = (s) => (s.toLowerCase().match(/[a-z']+/g) ?? []);

function judge(prompt) {
  const m = [...prompt.matchAll(/Response Candidate\nTherapist: ([^\n]*)/g)].pop();
  const response = m ? m[1] : '';
  const dialogue = prompt.slice(prompt.lastIndexOf('\nDialogue\n'), m ? m.index : undefined);
  const r = words(response);
  const c = words(dialogue);
  const cats = [];
  if (r.length < 4 || /^\s*-/.test(response) || !/[.?!"”']\s*$/.test(response)) cats.push('Malformed');
  const tri = new Set(c.slice(2).map((_, i) => c.slice(i, i + 3).join(' ')));
  const rt = r.slice(2).map((_, i) => r.slice(i, i + 3).join(' '));
  if (rt.length && rt.filter((t) => tri.has(t)).length / rt.length >= 0.5) cats.push('Parroting');
  const long = r.filter((w) => w.length >= 4);
  const cs = new Set(c);
  if (long.length && long.filter((w) => cs.has(w)).length / long.length < 0.15) cats.push('Off-topic');
  return JSON.stringify({ categories: cats, mostEvidentError: cats[0] ?? null, rationale: `"${response.slice(0, 80)}"` });
}

createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const prompt = JSON.parse(body || '{}').messages?.[0]?.content ?? '';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'stub', object: 'chat.completion', created: 0, model: 'stub-error-judge', choices: [{ index: 0, message: { role: 'assistant', content: judge(prompt) }, finish_reason: 'stop' }], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } }));
  });
}).listen(port, '127.0.0.1', () => process.stderr.write(`stub error judge on http://127.0.0.1:${port}/v1\n`));
