/** Small pieces the conversation's rows share: the step number with "Fork from here", the fork mark, the id hints. */
import type { ForkTarget } from '../history/ForkDialog';
import type { DispatchState } from './conversation-builder';

/** Two ids for one call, explained where they show: the model's, and the host's dispatch. */
export const MODEL_CALL_ID_HINT =
  'The id the model gave this call: the script answers the model with it (tool_call_id).';
export const DISPATCH_ID_HINT =
  "The host's id for this tools.call: call-1, call-2, ... in the order the script dispatched them. Approvals, the log and the transcript use it.";

/** Asks to fork the shown run at a step (opens the fork dialog). */
export type OnFork = (target: Omit<ForkTarget, 'runId'>) => void;

/** The step number of a row, and "Fork from here" on it (docs/host-api.md#forks). */
export function ForkFromHere({ step, label, onFork }: { step: number; label: string; onFork: () => void }) {
  return (
    <>
      <span className="muted small step-label" title="The step number a fork names (the event's seq)">
        step {step}
      </span>
      <button
        type="button"
        className="button button-small fork-button"
        onClick={onFork}
        aria-label={`Fork from here: step ${step} (${label})`}
      >
        Fork from here
      </button>
    </>
  );
}

export const stateLabels: Record<DispatchState | 'running', string> = {
  requested: 'requested',
  'awaiting approval': 'awaiting approval',
  approved: 'approved',
  edited: 'approved with edits',
  denied: 'denied',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  running: 'running',
};

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

/** The mark on the row a fork edited at its step. */
export function EditedInFork() {
  return (
    <span className="tag fork-edited-tag" title="This fork replaced what the parent run recorded at this step">
      edited in fork
    </span>
  );
}
