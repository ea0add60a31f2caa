/**
 * Candidate reflections for clustering tests: the first study's example cluster (§4.2.1; II has the most tokens)
 * among unrelated candidates.
 */
export const PLAN_CLUSTER_TEXTS = [
  'Okay. So, it sounds like you have a really good plan for your future.',
  'Okay. So, it sounds like you have a pretty good plan in place for what you want to do with your life.',
  'Okay. So, it sounds like you have a pretty good plan for your future.',
  "You're worried about how much you drink.",
  'You are worried about your drinking.',
  'How many drinks do you have in a week?',
  'Yeah.',
  'Mm-hmm.',
] as const;
