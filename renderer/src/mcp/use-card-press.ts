/**
 * The deliberate-act rules of an approval card for the MCP servers' cards: a click acts only on an
 * armed card and never as the second click of a double click, a key only after the person moved
 * focus into the card; a press that does not act says why (approval-card-logic.ts's words), and
 * the buttons stay reachable while the card arms.
 */
import { useState, type MouseEvent } from 'react';
import { ignoredNotice, type Ignored } from '../approvals/approval-card-logic';

export interface CardPress {
  /** A button's click handler: `act` runs only when the card may act now. */
  onClick: (act: () => void) => (event: MouseEvent<HTMLButtonElement>) => void;
  /** Whether a key may act now (`deliberate`: focus came in by the person's own act); says why not. */
  keyMayAct: (deliberate: boolean) => boolean;
  /** A submit button's click: a double click's second click submits nothing. */
  onSubmitClick: (event: MouseEvent<HTMLButtonElement>) => void;
  /** Whether a form may be submitted now; says why not. */
  submitMayAct: () => boolean;
  /** What the card says about the last press it ignored ('' when none). */
  notice: string;
  clear: () => void;
}

export function useCardPress(armed: boolean, busy: boolean): CardPress {
  const [ignored, setIgnored] = useState<Ignored | null>(null);
  const mayAct = (): boolean => {
    if (busy) return false;
    if (!armed) {
      setIgnored('arming');
      return false;
    }
    setIgnored(null);
    return true;
  };
  return {
    onClick: (act) => (event) => {
      event.preventDefault();
      if (busy) return;
      if (event.detail > 1) return setIgnored('double');
      if (mayAct()) act();
    },
    keyMayAct: (deliberate) => {
      if (busy) return false;
      if (!deliberate) {
        setIgnored('focus');
        return false;
      }
      return mayAct();
    },
    onSubmitClick: (event) => {
      if (event.detail > 1) {
        event.preventDefault();
        setIgnored('double');
      }
    },
    submitMayAct: mayAct,
    notice: ignored === null ? '' : ignoredNotice(ignored, armed),
    clear: () => setIgnored(null),
  };
}
