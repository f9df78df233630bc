/**
 * What the workspace area shows (an agent's tab, a catalog, a tool trial, the history, a settings
 * view, or nothing), how the person moves between them without losing unsaved edits by accident,
 * and the confirmation that asks first.
 */
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { CenterView } from '../workspace/Explorer';
import type { AgentBuffers } from '../editor/use-agent-buffers';
import { describeError } from './studio-api';

/** A question put before an action that would lose something (unsaved edits). */
export interface PendingConfirm {
  title: string;
  message: string;
  confirmLabel: string;
  action: () => void;
}

export interface CenterViewControls {
  /** The view shown (the agent view shows the active tab). */
  view: CenterView;
  setView: (view: CenterView) => void;
  /** Shows `next`, asking first when the catalog editor being left has unsaved changes. */
  selectView: (next: CenterView) => void;
  /** Opens an agent in its tab (its buffer, with any unsaved edits, is kept while other tabs show). */
  openAgent: (path: string) => Promise<void>;
  /** Runs `action` at once, or after the person confirms when `dirty`. */
  guard: (dirty: boolean, title: string, message: string, confirmLabel: string, action: () => void) => void;
  catalogDirty: boolean;
  setCatalogDirty: (dirty: boolean) => void;
  /** The question waiting for an answer, if any. */
  confirm: PendingConfirm | null;
  /** The person's answer to {@link confirm}. */
  answerConfirm: (confirmed: boolean) => void;
  /**
   * How many times a view or an agent was chosen so far: something done later on the studio's own
   * account (showing the first agent of a workspace just opened) compares it, and leaves the view
   * alone when the person chose one meanwhile.
   */
  choices: () => number;
  /** The empty editor's "New agent…" button, where focus lands when the last tab closes. */
  pickAgentButton: RefObject<HTMLButtonElement | null>;
}

export function useCenterView(buffers: AgentBuffers, onError: (message: string) => void): CenterViewControls {
  const [centerView, setView] = useState<CenterView>({ kind: 'none' });
  const agent = buffers.active;
  // The agent view shows the active tab.
  const view: CenterView =
    centerView.kind !== 'agent' ? centerView : agent ? { kind: 'agent', path: agent.path } : { kind: 'none' };
  const [catalogDirty, setCatalogDirty] = useState(false);
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  // Closing the last tab removes the element that had focus. A keyboard user then lands on the
  // empty editor's "New agent…" button instead of the page's body (and no further Tab press lost).
  const pickAgentButton = useRef<HTMLButtonElement>(null);
  const showedAgent = useRef(false);
  useEffect(() => {
    const focusLost = document.activeElement === null || document.activeElement === document.body;
    if (view.kind === 'none' && showedAgent.current && focusLost) pickAgentButton.current?.focus();
    showedAgent.current = view.kind === 'agent';
  }, [view.kind]);

  const guard = (dirty: boolean, title: string, message: string, confirmLabel: string, action: () => void): void => {
    if (!dirty) action();
    else setConfirm({ title, message, confirmLabel, action });
  };

  const chosen = useRef(0);
  const openAgent = async (path: string): Promise<void> => {
    chosen.current += 1;
    try {
      await buffers.openAgent(path);
      setView({ kind: 'agent', path });
    } catch (error) {
      onError(describeError(error));
    }
  };

  const selectView = (next: CenterView): void => {
    chosen.current += 1;
    // An agent's unsaved edits stay in its tab; only the catalog editor's are lost by leaving it.
    guard(
      view.kind === 'catalog' && catalogDirty,
      'Discard unsaved changes?',
      'The file you are leaving has unsaved changes.',
      'Discard changes',
      () => {
        setCatalogDirty(false);
        if (next.kind === 'agent') void openAgent(next.path);
        else setView(next);
      },
    );
  };

  const answerConfirm = (confirmed: boolean): void => {
    const action = confirm?.action;
    setConfirm(null);
    if (confirmed) action?.();
  };

  return {
    view,
    setView,
    selectView,
    openAgent,
    guard,
    catalogDirty,
    setCatalogDirty,
    choices: () => chosen.current,
    confirm,
    answerConfirm,
    pickAgentButton,
  };
}
