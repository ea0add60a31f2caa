/**
 * ReflectEval's version (from package.json), recorded in metric signatures (`rv:<version>`) so a table says
 * which release produced it.
 */
import { version } from '../../package.json';

export const REFLECT_EVAL_VERSION: string = version;
