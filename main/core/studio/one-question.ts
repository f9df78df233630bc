import { ContractError } from './contract-error.js';
import type { ConfirmWithPerson } from './studio-trust.js';

/**
 * Main's dialog asks one question at a time: while one is open, another is refused (`person-busy`)
 * instead of stacking a second dialog on the first, so a page cannot queue up dialogs to wear the
 * person down, and an answer always belongs to the question on screen.
 */
export function oneQuestionAtATime(confirm: ConfirmWithPerson | undefined): ConfirmWithPerson | undefined {
  if (confirm === undefined) return undefined;
  let open: string | undefined;
  return async (question) => {
    if (open !== undefined)
      throw new ContractError(
        'person-busy',
        `"${question.title}" was not asked: the studio is already asking you "${open}" in its own dialog. Answer that first, then try again.`,
      );
    open = question.title;
    try {
      return await confirm(question);
    } finally {
      open = undefined;
    }
  };
}
