import { useEffect, useMemo, useState } from 'react';
import { parseExactJson, type JsonValue } from '../../../common/json.js';
import { describeArgumentProblem } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';

/**
 * How long typing must pause before the arguments are sent to the core for checking. Each check
 * is one small IPC call; the verdict shown is always the one for the text on screen.
 */
export const ARGUMENTS_CHECK_DEBOUNCE_MS = 150;

/** The verdict on the arguments in an editor, as the studio shows it. */
export type ArgumentsCheck =
  | { state: 'checking' }
  | { state: 'valid'; value: Record<string, JsonValue> }
  | { state: 'invalid'; problems: string[] };

/**
 * The text as a JSON object, or why it is not one (checked here: it is the request's shape, not the
 * schema). A duplicate key or a number JSON cannot hold exactly is refused (`parseExactJson`).
 */
export function parseArgumentsText(
  text: string,
): { ok: true; value: Record<string, JsonValue> } | { ok: false; problem: string } {
  const parsed = parseExactJson(text);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, problem: 'the arguments must be a JSON object' };
  return { ok: true, value: value as Record<string, JsonValue> };
}

/**
 * Checks `text` as the arguments of tool `alias` with the core's validator (`args:check`, the
 * same ajv the dispatcher runs; `runId` picks that run's catalog), debounced while the person
 * types. `text === undefined` checks nothing. A stale answer never replaces a newer one.
 */
export function useArgumentsCheck(alias: string, text: string | undefined, runId?: string): ArgumentsCheck {
  const [verdict, setVerdict] = useState<{ text: string; check: ArgumentsCheck } | undefined>(undefined);
  const parsed = useMemo(() => (text === undefined ? undefined : parseArgumentsText(text)), [text]);
  useEffect(() => {
    if (text === undefined || !parsed?.ok) return;
    let current = true;
    const timer = window.setTimeout(() => {
      call('args:check', { alias, arguments: parsed.value, ...(runId !== undefined && { runId }) }).then(
        (answer) => {
          if (!current) return;
          setVerdict({
            text,
            check: answer.valid
              ? { state: 'valid', value: parsed.value }
              : { state: 'invalid', problems: answer.problems.map(describeArgumentProblem) },
          });
        },
        (error: unknown) => {
          if (current) setVerdict({ text, check: { state: 'invalid', problems: [describeError(error)] } });
        },
      );
    }, ARGUMENTS_CHECK_DEBOUNCE_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [alias, runId, text, parsed]);
  if (parsed && !parsed.ok) return { state: 'invalid', problems: [parsed.problem] };
  // Until the verdict for this very text is in, the check is still running.
  return verdict !== undefined && verdict.text === text ? verdict.check : { state: 'checking' };
}
