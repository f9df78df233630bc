/** The window's dialogs over everything else: a confirmation, the shortcuts, the palette, the agent file dialogs, the no-key offer. */
import type { ReactNode } from 'react';
import { agentNameOf } from '../../../common/agent-name.js';
import type { MissingKey } from '../run/key-check';
import { NoKeyDialog } from '../run/NoKeyDialog';
import type { ActionHandlers } from './actions';
import { CommandPalette } from './CommandPalette';
import { ConfirmDialog, ShortcutsDialog } from './Dialogs';
import type { PendingConfirm } from './use-center-view';

export function AppDialogs({
  confirm,
  onAnswerConfirm,
  shortcutsOpen,
  onCloseShortcuts,
  paletteOpen,
  onClosePalette,
  handlers,
  fileDialog,
  missingKey,
  agentPath,
  onCloseMissingKey,
  onRunWithKey,
  onRunOffline,
}: {
  confirm: PendingConfirm | null;
  onAnswerConfirm: (confirmed: boolean) => void;
  shortcutsOpen: boolean;
  onCloseShortcuts: () => void;
  paletteOpen: boolean;
  onClosePalette: () => void;
  handlers: ActionHandlers;
  /** The agent file dialog that is open, if any (use-agent-file-actions.tsx). */
  fileDialog: ReactNode;
  missingKey: MissingKey | null;
  /** The active agent's path, which the no-key offer is about. */
  agentPath: string | null;
  onCloseMissingKey: () => void;
  onRunWithKey: () => void;
  /** Runs the agent's recording instead; undefined when it has none. */
  onRunOffline: (() => void) | undefined;
}) {
  return (
    <>
      {confirm ? (
        <ConfirmDialog
          title={confirm.title}
          message={confirm.message}
          confirmLabel={confirm.confirmLabel}
          onCancel={() => onAnswerConfirm(false)}
          onConfirm={() => onAnswerConfirm(true)}
        />
      ) : null}
      {shortcutsOpen ? <ShortcutsDialog onClose={onCloseShortcuts} /> : null}
      {paletteOpen ? <CommandPalette handlers={handlers} onClose={onClosePalette} /> : null}
      {fileDialog}
      {missingKey && agentPath !== null ? (
        <NoKeyDialog
          missing={missingKey}
          agent={agentNameOf(agentPath)}
          onClose={onCloseMissingKey}
          onRunWithKey={onRunWithKey}
          onRunOffline={onRunOffline}
        />
      ) : null}
    </>
  );
}
