/**
 * Parsing a command's flags: each mistake becomes a one-line {@link UsageError} that names the
 * flag, says what is wrong and how to fix it (with the nearest known word for a typo).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorMessage } from '../../common/error-message.js';
import { UsageError } from './cli-errors.js';

/** What each flag's value is, for "--flag needs a value (...)". */
const FLAG_VALUES: Record<string, string> = {
  workspace: 'a folder',
  model: 'a model alias from models.yaml',
  'base-url': 'an endpoint URL',
  'model-id': 'the model id to send',
  approve: 'ask, auto or deny',
  replay: 'a transcript file',
  transcript: 'the file to write the transcript to',
  'cpu-limit': 'a number of seconds',
  'memory-limit': 'a number of MiB',
  timeout: 'a number of seconds',
  'fork-at': 'a step number',
  'edit-output': 'the text, or @FILE',
  'edit-reply': 'the text, or @FILE',
  'edit-calls': 'a JSON list of calls, or @FILE',
};

/** Flags whose value is free text, which may start with "-" when written as --flag=-text. */
const TEXT_FLAGS = new Set(['edit-output', 'edit-reply', 'edit-calls']);

/**
 * The number of single-character edits (insert, delete, replace, swap two neighbours) that turn
 * `a` into `b`, or `limit + 1` once it is known to be more than `limit`.
 */
export function editDistance(a: string, b: string, limit = 2): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
    }
    if (Math.min(...row) > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length]!, limit + 1);
}

/** The known word nearest to `word` (at most 2 edits away), if one is. */
function nearest(word: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { word: candidate, distance };
  }
  return best?.word;
}

/** `unknown command "runn"; did you mean run?`, or `otherwise` when no known word is near. */
export function unknownWord(what: string, word: string, known: readonly string[], otherwise: string): string {
  const guess = nearest(word, known);
  return `unknown ${what} "${word}"; ${guess ? `did you mean ${guess}?` : otherwise}`;
}

/**
 * Checks `args` against `options` before parseArgs does, so that each mistake gets a one-line
 * message that names the flag, says what is wrong and how to fix it: an unknown flag (with the
 * nearest known one), a flag missing its value, a value on a flag that takes none. A negative
 * number after a flag is taken as its value (`--fork-at -3`), for the flag's own check to refuse.
 * Returns the arguments for parseArgs.
 */
function checkFlags(command: string, args: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const names = Object.keys(options);
  const checked: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      checked.push(...args.slice(i));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      checked.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const equals = arg.indexOf('=');
    const name = long ? arg.slice(2, equals === -1 ? undefined : equals) : arg.slice(1);
    const option = long && Object.hasOwn(options, name) ? options[name] : undefined;
    if (!option) {
      const guess = nearest(long ? name : `-${name}`, names);
      throw new UsageError(
        `${command} has no option ${long ? `--${name}` : arg}; ` +
          (guess ? `did you mean --${guess}?` : `\`promptforge ${command} --help\` lists its options`),
      );
    }
    if (option.type === 'boolean') {
      if (equals !== -1) throw new UsageError(`--${name} takes no value; write just --${name}`);
      checked.push(arg);
      continue;
    }
    if (equals !== -1) {
      checked.push(arg);
      continue;
    }
    const value = args[i + 1];
    const needs = `--${name} needs a value (${FLAG_VALUES[name] ?? 'see the help'})`;
    if (value === undefined) throw new UsageError(`${needs} after it`);
    if (value.startsWith('-') && value !== '-') {
      if (/^-\d/.test(value)) {
        checked.push(`--${name}=${value}`);
        i++;
        continue;
      }
      const flag = value.startsWith('--') ? value.split('=')[0]! : value;
      if (TEXT_FLAGS.has(name) && !(value.startsWith('--') && Object.hasOwn(options, flag.slice(2))))
        throw new UsageError(`${needs}; for a value that starts with "-", write --${name}=${value}`);
      throw new UsageError(`${needs}, but ${flag} follows it; put the value right after --${name}`);
    }
    checked.push(arg, value);
    i++;
  }
  return checked;
}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(command: string, args: string[], options: T) {
  const checked = checkFlags(command, args, options);
  try {
    return parseArgs({ args: checked, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

export function positiveNumber(flag: string, value: string | undefined, unit: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new UsageError(`${flag} must be a positive number of ${unit}, got "${value}"`);
  return number;
}
