/** The `run --fork-at STEP` flags (`--edit-output`, `--edit-reply`, `--edit-calls`, `--force`), checked. */
import path from 'node:path';
import type { ForkEdit } from '../../common/run-events.js';
import { nestingDepth, parseExactJson } from '../../common/json.js';
import { FileReadError, readRegularFileText } from '../core/files/regular-file.js';
import { MAX_LUA_DEPTH } from '../core/run/worker-protocol.js';
import { UsageError } from './cli-errors.js';
import type { CliIo } from './cli-io.js';

/** Largest file an `--edit-*` flag reads with `@FILE`. */
const MAX_EDIT_FILE_BYTES = 16 << 20;

/**
 * An `--edit-*` or `--input` value: the text itself, `@FILE` for a file's text, `@@...` for text
 * starting with `@`.
 */
export async function flagText(flag: string, value: string, io: CliIo): Promise<string> {
  if (!value.startsWith('@') || value.startsWith('@@')) return value.startsWith('@@') ? value.slice(1) : value;
  const file = path.resolve(io.cwd, value.slice(1));
  try {
    return await readRegularFileText(file, MAX_EDIT_FILE_BYTES, 'file', value.slice(1));
  } catch (error) {
    throw new UsageError(
      `${flag} ${value}: ${error instanceof FileReadError ? error.message : 'cannot read the file'}`,
    );
  }
}

/** The `--fork-at` flags, checked: the step, the edit at it, and `--force`. */
export async function forkOptions(
  values: {
    replay?: string | undefined;
    'fork-at'?: string | undefined;
    'edit-output'?: string | undefined;
    'edit-reply'?: string | undefined;
    'edit-calls'?: string | undefined;
    force?: boolean | undefined;
  },
  io: CliIo,
): Promise<{ step: number; edit?: ForkEdit; force: boolean } | undefined> {
  const editFlags = (['edit-output', 'edit-reply', 'edit-calls'] as const).filter((flag) => values[flag] !== undefined);
  const at = values['fork-at'];
  if (at === undefined) {
    const stray = [...editFlags, ...(values.force ? (['force'] as const) : [])];
    if (stray.length > 0) throw new UsageError(`--${stray[0]} goes with --fork-at STEP`);
    return undefined;
  }
  if (values.replay === undefined)
    throw new UsageError('--fork-at needs --replay TRANSCRIPT: the recording of the run to fork');
  if (!/^[1-9]\d*$/.test(at))
    throw new UsageError(
      `--fork-at must be a step, a positive integer (the seq of a model round or tool output in the recording), got "${at}"`,
    );
  const edit: ForkEdit = {};
  if (values['edit-output'] !== undefined) edit.output = await flagText('--edit-output', values['edit-output'], io);
  if (values['edit-reply'] !== undefined) edit.reply = await flagText('--edit-reply', values['edit-reply'], io);
  if (values['edit-calls'] !== undefined) {
    const text = await flagText('--edit-calls', values['edit-calls'], io);
    const exact = parseExactJson(text);
    if (!exact.ok) throw new UsageError(`--edit-calls: ${exact.problem}`);
    const parsed = exact.value;
    // Checked before the schema, whose recursive check would overflow the stack on a deep value.
    if (nestingDepth(parsed, MAX_LUA_DEPTH) > MAX_LUA_DEPTH)
      throw new UsageError(
        `--edit-calls is nested more than ${MAX_LUA_DEPTH} levels deep, deeper than a script can receive; flatten the arguments`,
      );
    const { ForkEditSchema } = await import('../../common/run-events.js');
    const calls = ForkEditSchema.shape.calls.safeParse(parsed);
    if (!calls.success || calls.data === undefined)
      throw new UsageError(
        '--edit-calls must be a JSON list of calls like [{"name": "echo", "arguments": {"text": "hi"}}] ([] for none)',
      );
    edit.calls = calls.data;
  }
  return { step: Number(at), ...(editFlags.length > 0 && { edit }), force: values.force === true };
}
