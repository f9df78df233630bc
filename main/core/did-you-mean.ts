/** The one "did you mean" of the CLI and the core: the known name a mistyped one is near, and how to show both. */
import type { z } from 'zod';
import { shownText } from './mcp/mcp-text.js';

/** Longest name shown in a message; a longer one is cut and ends in "…". */
export const MAX_SHOWN_NAME = 80;

/** Longest name a guess is made for: a name longer than this is not a typo of a known one. */
const LONGEST_GUESSED = 64;

/**
 * Most known names of a near length (within the most edits a guess allows) a name is compared
 * with: a longer list (a cloned workspace's tens of thousands of tools) gets no guess, so each
 * mistyped name costs a bounded time.
 */
export const MAX_GUESS_CANDIDATES = 2000;

/** Most edits any guess allows ({@link allowedEdits}). */
const MOST_EDITS = 3;

/**
 * A name as a message shows it: control and invisible characters as `\u{..}`, line breaks and tabs
 * too (a name that breaks the line would start one that looks like the host's own), cut to
 * {@link MAX_SHOWN_NAME}.
 */
export function shownName(name: string): string {
  return shownText(name, MAX_SHOWN_NAME).replace(
    // eslint-disable-next-line no-control-regex -- the control characters are what it spells out
    /[\u0000-\u001f\u007f-\u009f]/g,
    (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`,
  );
}

/**
 * The number of single-character edits (insert, delete, replace, swap two neighbours) that turn
 * `a` into `b`, or `limit + 1` once it is known to be more than `limit`. Only the cells within
 * `limit` of the diagonal are computed (any other is over the limit), each kept at most `limit + 1`.
 */
export function editDistance(a: string, b: string, limit = 2): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  let before = new Array<number>(b.length + 1).fill(over);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => Math.min(j, over));
  let row = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    row.fill(over);
    let least = Math.min(i, over);
    row[0] = least;
    for (let j = Math.max(1, i - limit); j <= Math.min(b.length, i + limit); j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      best = Math.min(best, over);
      row[j] = best;
      least = Math.min(least, best);
    }
    if (least > limit) return over;
    [before, previous, row] = [previous, row, before];
  }
  return previous[b.length]!;
}

/** Edits a typo may be from a name, by the longer one's length: none up to 2 characters (only case), then more as names grow. */
function allowedEdits(length: number): number {
  if (length <= 2) return 0;
  if (length <= 5) return 1;
  if (length <= 8) return 2;
  return 3;
}

/**
 * The known name `name` is clearly a typo of, compared without case: the only one nearest to it,
 * within a few edits for the longer name's length (a swap of two neighbours is one edit). Undefined when none is
 * that near, when two are equally near, for an empty or long name, and among more than
 * {@link MAX_GUESS_CANDIDATES} names of a near length.
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  if (name.length === 0 || name.length > LONGEST_GUESSED) return undefined;
  const typed = name.toLowerCase();
  const near: [candidate: string, lower: string][] = [];
  for (const candidate of new Set(known)) {
    const lower = candidate.toLowerCase();
    if (Math.abs(lower.length - typed.length) > MOST_EDITS) continue;
    if (near.length === MAX_GUESS_CANDIDATES) return undefined;
    near.push([candidate, lower]);
  }
  let best: string | undefined;
  let bestDistance = Infinity;
  let tied = false;
  for (const [candidate, lower] of near) {
    const limit = allowedEdits(Math.max(typed.length, lower.length));
    const distance = editDistance(typed, lower, limit);
    if (distance > limit) continue;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tied = false;
    } else if (distance === bestDistance && best !== undefined && candidate.toLowerCase() !== best.toLowerCase())
      tied = true;
  }
  return tied ? undefined : best;
}

/** What a message says about a mistyped name: the guess, `; did you mean "agent"?` (or ``), and the fix. */
export interface NameGuess {
  guess: string | undefined;
  /** `; did you mean "agent"?`, or `` when no known name is near. */
  meant: string;
  /** `Rename it to "agent".` (a field) or `Write "agent" instead.` (a value), or `otherwise`. */
  fix: string;
}

/**
 * The "did you mean" of a mistyped `name` among `known`: a field (`key`) is renamed, a value is
 * written differently. `otherwise` is the fix when no known name is near.
 */
export function guessName(name: string, known: Iterable<string>, kind: 'key' | 'value', otherwise: string): NameGuess {
  const guess = nearestName(name, known);
  if (guess === undefined) return { guess, meant: '', fix: otherwise };
  const shown = `"${shownName(guess)}"`;
  return {
    guess,
    meant: `; did you mean ${shown}?`,
    fix: kind === 'key' ? `Rename it to ${shown}.` : `Write ${shown} instead.`,
  };
}

/** A message's tail: `; did you mean "x"? (rest)` with a guess, `; rest` without one. */
export function meantThen(typo: NameGuess, rest: string): string {
  return typo.guess === undefined ? `; ${rest}` : `${typo.meant} (${rest})`;
}

type AnyZod = z.core.$ZodType;

/**
 * The field names a zod schema allows in the object at `path` (all of them, across a union's
 * branches), for the "did you mean" of an unknown field; empty when the path leads to no object.
 */
export function zodFieldNames(schema: AnyZod, path: readonly PropertyKey[]): string[] {
  const names = new Set<string>();
  const visit = (node: AnyZod, rest: readonly PropertyKey[], depth: number): void => {
    if (depth > 64) return;
    const def = node._zod.def as unknown as Record<string, unknown> & { type: string };
    const inner = (key: string): void => visit(def[key] as AnyZod, rest, depth + 1);
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'catch':
      case 'readonly':
      case 'nonoptional':
        return inner('innerType');
      case 'pipe':
        return inner('in');
      case 'lazy':
        return visit((def['getter'] as () => AnyZod)(), rest, depth + 1);
      case 'union':
        for (const option of def['options'] as AnyZod[]) visit(option, rest, depth + 1);
        return;
      case 'intersection':
        inner('left');
        inner('right');
        return;
      case 'object': {
        const shape = def['shape'] as Record<string, AnyZod>;
        if (rest.length === 0) for (const key of Object.keys(shape)) names.add(key);
        else if (typeof rest[0] === 'string' && Object.hasOwn(shape, rest[0]))
          visit(shape[rest[0]]!, rest.slice(1), depth + 1);
        return;
      }
      case 'array':
        if (typeof rest[0] === 'number') visit(def['element'] as AnyZod, rest.slice(1), depth + 1);
        return;
      case 'record':
        if (rest.length > 0) visit(def['valueType'] as AnyZod, rest.slice(1), depth + 1);
        return;
      default:
        return;
    }
  };
  visit(schema, path, 0);
  return [...names];
}

/**
 * Zod's issues with each one a typo explains left out: a field reported missing (or not of its
 * form, as a missing union field is) where an unknown field beside it is a typo of its name, so
 * `agnet:` is said once, as the unknown field. `data` is the value that was parsed.
 */
export function withoutTypoEchoes(
  schema: AnyZod,
  data: unknown,
  issues: readonly z.core.$ZodIssue[],
): z.core.$ZodIssue[] {
  const meant = new Set<string>();
  const pathKey = (path: readonly PropertyKey[]) => JSON.stringify(path.map((part) => String(part)));
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const known = zodFieldNames(schema, issue.path);
    for (const key of issue.keys) {
      const guess = nearestName(key, known);
      if (guess !== undefined) meant.add(pathKey([...issue.path, guess]));
    }
  }
  if (meant.size === 0) return [...issues];
  return issues.filter((issue) => !(meant.has(pathKey(issue.path)) && valueAt(data, issue.path) === undefined));
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let node = data;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    const key = String(part);
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}
