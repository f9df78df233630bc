import { RE2JS } from 're2js';
import { errorMessage } from './error-message.js';
import { isPlainObject } from './json.js';

/**
 * JSON Schema `pattern` and `patternProperties` run on the main process for every tool call, on
 * text a model (or a person) chose. A backtracking engine can spend years on `^(a+)+$` against 41
 * characters, so every schema regex runs on RE2 (re2js), whose matching time is linear in the
 * input. RE2 has no backreferences and no lookaround; a pattern that needs them is refused when
 * the catalog loads, with a message saying what to change.
 */

/** A pattern PromptForge cannot run in linear time (or at all); `fix` says what to write instead. */
export class UnsupportedPatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}...` : pattern)} ${reason}`);
    this.name = 'UnsupportedPatternError';
  }
}

const LINEAR_FIX =
  'Rewrite it without backreferences (\\1, \\k<name>), lookahead or lookbehind ((?=, (?!, (?<=, (?<!) and with repeat counts of at most 1000: PromptForge runs schema patterns on RE2 (linear time), so that no input can freeze it.';

/** The first construct in `pattern` RE2 does not have, described; undefined when there is none. */
function nonRegularConstruct(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && next === 'k') return 'uses a named backreference (\\k<...>)';
      if (!inClass && /[1-9]/.test(next)) return `uses a backreference (\\${next})`;
      i += 1;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
    } else if (ch === '(' && pattern[i + 1] === '?') {
      const look = pattern.slice(i + 2, i + 5);
      if (look.startsWith('=') || look.startsWith('!')) return `uses lookahead (${pattern.slice(i, i + 3)})`;
      if (look.startsWith('<=') || look.startsWith('<!')) return `uses lookbehind (${pattern.slice(i, i + 4)})`;
    }
  }
  return undefined;
}

/**
 * JavaScript spells a script or category class `\p{Script=Greek}` or `\p{gc=Lu}`; RE2 spells
 * both `\p{Greek}`, `\p{Lu}`. (The pattern already parsed as JavaScript, so `\p{` here is
 * always a property escape.)
 */
function toRe2PropertyNames(pattern: string): string {
  return pattern.replace(/\\([pP])\{(?:Script|sc|General_Category|gc)=([A-Za-z_]+)\}/g, '\\$1{$2}');
}

/**
 * RE2's time is linear in the input but also grows with the size of the compiled pattern (its
 * worst case is about 7 ns per instruction per character). Patterns are capped in size, and a
 * match whose worst case passes {@link MAX_MATCH_STEPS} is not run: the value fails the pattern.
 */
const MAX_PROGRAM_SIZE = 5000;
/** The longest pattern compiled (compiling is not free either). */
const MAX_PATTERN_LENGTH = 4096;
const TOO_LARGE_FIX =
  'Use smaller repeat counts (e.g. {1,100} rather than {1,1000} around a group), "enum" instead of a long list of alternatives, or "maxLength" for a length limit.';
/** Instructions times characters: about a third of a second in the worst case. */
const MAX_MATCH_STEPS = 50_000_000;

/** The longest text `pattern` (already compiled) is run on; longer text fails it. */
export function maxPatternInputLength(regexp: RE2JS): number {
  return Math.floor(MAX_MATCH_STEPS / Math.max(1, regexp.programSize()));
}

/**
 * A rough size of the program RE2 would compile `pattern` to, from one scan of the text: each
 * atom counts 1, a group the sum of its parts, and a repeat `{n,m}` multiplies its atom by m.
 * It stops counting past `limit`. Compiling a pattern that expands to hundreds of thousands of
 * instructions takes seconds, so such patterns are refused before RE2 sees them.
 */
function estimatedProgramSize(pattern: string, limit: number): number {
  const frames: number[] = [0];
  let lastAtom = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i]!;
    const top = frames.length - 1;
    if (inClass) {
      if (ch === '\\') i += 1;
      else if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '\\') {
      i += 1;
      lastAtom = 1;
      frames[top]! += 1;
    } else if (ch === '[') {
      inClass = true;
      lastAtom = 1;
      frames[top]! += 1;
    } else if (ch === '(') {
      frames.push(0);
      lastAtom = 0;
    } else if (ch === ')') {
      lastAtom = Math.max(1, frames.pop() ?? 0);
      if (frames.length === 0) frames.push(0);
      frames[frames.length - 1]! += lastAtom;
    } else if (ch === '{') {
      const repeat = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (repeat) {
        const count = Math.max(Number(repeat[1]), Number(repeat[2] || repeat[1]));
        frames[top]! += lastAtom * Math.max(0, count - 1);
        i += repeat[0].length - 1;
      } else frames[top]! += 1;
    } else {
      lastAtom = 1;
      frames[top]! += 1;
    }
    if (frames.reduce((sum, size) => sum + size, 0) > limit) return limit + 1;
  }
  return frames.reduce((sum, size) => sum + size, 0);
}

const compiled = new Map<string, RE2JS>();
const MAX_CACHED = 1000;

/**
 * Compiles a JSON Schema pattern (ECMA-262 syntax with the `u` flag, as ajv reads it) for RE2.
 * Throws {@link UnsupportedPatternError} when it is not a valid regular expression or needs a
 * feature RE2 lacks.
 */
export function compileLinearPattern(pattern: string): RE2JS {
  const hit = compiled.get(pattern);
  if (hit) return hit;
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new UnsupportedPatternError(
      pattern,
      `is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH}`,
      TOO_LARGE_FIX,
    );
  try {
    // Only parsed, never run: the syntax check JSON Schema asks for.
    new RegExp(pattern, 'u');
  } catch (error) {
    throw new UnsupportedPatternError(
      pattern,
      `is not a valid regular expression (${errorMessage(error)})`,
      'Fix the regular expression (JavaScript syntax, Unicode mode).',
    );
  }
  const construct = nonRegularConstruct(pattern);
  if (construct) throw new UnsupportedPatternError(pattern, construct, LINEAR_FIX);
  // Generous, since the estimate can exceed the real size (RE2 factors common prefixes).
  if (estimatedProgramSize(pattern, 4 * MAX_PROGRAM_SIZE) > 4 * MAX_PROGRAM_SIZE)
    throw new UnsupportedPatternError(
      pattern,
      `is too large for RE2 to run quickly (its repeats expand to more than ${4 * MAX_PROGRAM_SIZE} steps)`,
      TOO_LARGE_FIX,
    );
  let regexp: RE2JS;
  try {
    regexp = RE2JS.compile(RE2JS.translateRegExp(toRe2PropertyNames(pattern)));
  } catch (error) {
    throw new UnsupportedPatternError(pattern, `is not supported by RE2 (${errorMessage(error)})`, LINEAR_FIX);
  }
  if (regexp.programSize() > MAX_PROGRAM_SIZE)
    throw new UnsupportedPatternError(
      pattern,
      `is too large for RE2 to run quickly (${regexp.programSize()} instructions; at most ${MAX_PROGRAM_SIZE})`,
      TOO_LARGE_FIX,
    );
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(pattern, regexp);
  return regexp;
}

/**
 * ajv's `code.regExp` engine: every `pattern` and `patternProperties` ajv compiles goes through
 * RE2. `toString` must differ per pattern, since ajv shares compiled patterns by that key.
 */
export const linearRegExp = Object.assign(
  (pattern: string): { test(text: string): boolean; toString(): string } => {
    const regexp = compileLinearPattern(pattern);
    const maxLength = maxPatternInputLength(regexp);
    return { test: (text: string) => text.length <= maxLength && regexp.test(text), toString: () => `re2:${pattern}` };
  },
  { code: 'linearRegExp' },
);

/** A pattern found inside a JSON Schema, with the JSON pointer segments leading to it. */
export interface SchemaPatternProblem {
  segments: (string | number)[];
  error: UnsupportedPatternError;
}

const SUBSCHEMA_KEYWORDS = [
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
];
const SUBSCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SUBSCHEMA_MAP_KEYWORDS = ['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];

/**
 * Every `pattern` and `patternProperties` key in a JSON Schema that RE2 cannot run, found by
 * walking the places a subschema can sit, so each one can be reported at its own JSON pointer.
 */
export function unsupportedSchemaPatterns(schema: unknown): SchemaPatternProblem[] {
  const problems: SchemaPatternProblem[] = [];
  const check = (pattern: string, segments: (string | number)[]) => {
    try {
      compileLinearPattern(pattern);
    } catch (error) {
      if (!(error instanceof UnsupportedPatternError)) throw error;
      problems.push({ segments, error });
    }
  };
  const visit = (node: unknown, segments: (string | number)[], depth: number) => {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || depth > 200) return;
    const record = node as Record<string, unknown>;
    if (typeof record['pattern'] === 'string') check(record['pattern'], [...segments, 'pattern']);
    const patternProperties = record['patternProperties'];
    if (typeof patternProperties === 'object' && patternProperties !== null && !Array.isArray(patternProperties)) {
      for (const [key, child] of Object.entries(patternProperties)) {
        check(key, [...segments, 'patternProperties', key]);
        visit(child, [...segments, 'patternProperties', key], depth + 1);
      }
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) visit(record[keyword], [...segments, keyword], depth + 1);
    for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
      const list = record[keyword];
      if (Array.isArray(list)) list.forEach((child, index) => visit(child, [...segments, keyword, index], depth + 1));
    }
    for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
      const map = record[keyword];
      if (isPlainObject(map))
        for (const [key, child] of Object.entries(map)) visit(child, [...segments, keyword, key], depth + 1);
    }
  };
  visit(schema, [], 0);
  return problems;
}
