/**
 * Parsing a command's flags: each mistake becomes a one-line {@link UsageError} that names the
 * flag, says what is wrong and how to fix it (with the nearest known word for a typo).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorMessage } from '../../common/error-message.js';
import { nearestName, shownName } from '../core/did-you-mean.js';
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

/** `unknown command "runn"; did you mean run?`, or `otherwise` when no known word is near. */
export function unknownWord(what: string, word: string, known: readonly string[], otherwise: string): string {
  const guess = nearestName(word, known);
  return `unknown ${what} "${shownName(word)}"; ${guess ? `did you mean ${guess}?` : otherwise}`;
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
      const guess = nearestName(long ? name : `-${name}`, names);
      throw new UsageError(
        `${command} has no option ${shownName(long ? `--${name}` : arg)}; ` +
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
