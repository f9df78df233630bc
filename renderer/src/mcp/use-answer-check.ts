/**
 * The core's verdict on an answer to a waiting form (`mcp:check-answer`, the very check the answer
 * meets when it is sent), asked while the person fills it in, debounced. The renderer checks nothing
 * itself.
 */
import { useEffect, useState } from 'react';
import type { ArgumentProblem } from '../../../common/studio-schemas.js';
import { ARGUMENTS_CHECK_DEBOUNCE_MS } from '../approvals/use-arguments-check';
import { call, describeError } from '../shell/studio-api';

export type AnswerCheck =
  { state: 'checking' } | { state: 'valid' } | { state: 'invalid'; problems: ArgumentProblem[] };

export function useAnswerCheck(id: string, content: Record<string, unknown> | undefined): AnswerCheck {
  const [verdict, setVerdict] = useState<{ content: unknown; check: AnswerCheck } | undefined>(undefined);
  useEffect(() => {
    if (content === undefined) return;
    let current = true;
    const timer = window.setTimeout(() => {
      call('mcp:check-answer', { id, content: content as Record<string, never> }).then(
        (answer) => {
          if (current)
            setVerdict({
              content,
              check: answer.valid ? { state: 'valid' } : { state: 'invalid', problems: answer.problems },
            });
        },
        (error: unknown) => {
          if (current)
            setVerdict({
              content,
              check: { state: 'invalid', problems: [{ pointer: '', message: describeError(error), fix: '' }] },
            });
        },
      );
    }, ARGUMENTS_CHECK_DEBOUNCE_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [id, content]);
  // Until the verdict for these very values is in, the check is still running.
  return verdict !== undefined && verdict.content === content ? verdict.check : { state: 'checking' };
}
