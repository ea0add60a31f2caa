/**
 * Annotator groups: the seeds compare laypeople with experts (Wu et al., ACL 2023; ICMI 2023 §2.1). An
 * annotation's group is its `group` field when present (imported tables), otherwise derived from the annotator
 * id: ids starting with the expert prefix (default `Expert`, as in the ACL 2023 release's "Expert 1"; compared
 * ignoring case, as the annotation-table importer does) are experts.
 */
import type { Annotation } from '../dialogue/types';

/** Which annotators a human score counts. */
export type HumanGroup = 'experts' | 'laypeople' | 'all';

/** How annotator ids map to groups. */
export interface GroupRules {
  /** Annotator ids starting with this (ignoring case) are experts. Default `Expert`. */
  expertPrefix: string;
}

export const DEFAULT_GROUP_RULES: Readonly<GroupRules> = { expertPrefix: 'Expert' };

/** `expert` or `layperson` for one annotation. An explicit `group` field wins over the id prefix. */
export function annotatorGroup(annotation: Pick<Annotation, 'annotator' | 'group'>, rules: GroupRules = DEFAULT_GROUP_RULES): 'expert' | 'layperson' {
  if (annotation.group) return /^expert/i.test(annotation.group) ? 'expert' : 'layperson';
  return annotation.annotator.toLowerCase().startsWith(rules.expertPrefix.toLowerCase()) ? 'expert' : 'layperson';
}

/** A predicate selecting the annotations of a group (all annotations for `all`). */
export function inGroup(group: HumanGroup, rules: GroupRules = DEFAULT_GROUP_RULES): (a: Pick<Annotation, 'annotator' | 'group'>) => boolean {
  if (group === 'all') return () => true;
  const want = group === 'experts' ? 'expert' : 'layperson';
  return (a) => annotatorGroup(a, rules) === want;
}
