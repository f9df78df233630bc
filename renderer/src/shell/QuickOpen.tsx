/**
 * Quick open (Ctrl/⌘+P): the workspace's agents, runs, tools, models and files in one list to
 * type into (quick-open.ts ranks them); Enter opens the one picked, Esc closes, and focus goes back
 * where it was (PickerDialog).
 */
import { useEffect, useState } from 'react';
import type { WorkspaceState } from '../../../common/studio-schemas.js';
import { call } from './studio-api';
import { PickerDialog } from './PickerDialog';
import { quickOpenItems, rankQuickOpen, type QuickItem, type QuickTarget } from './quick-open';

export function QuickOpen({
  workspace,
  onOpen,
  onClose,
}: {
  workspace: WorkspaceState;
  onOpen: (target: QuickTarget) => void;
  onClose: () => void;
}) {
  // The files are read when the dialog opens; the rest is the workspace state at hand.
  const [files, setFiles] = useState<string[] | null>(null);
  useEffect(() => {
    let live = true;
    call('files:list', {}).then(
      (listing) => live && setFiles(listing.files.filter((file) => file.kind === 'file').map((file) => file.path)),
      () => live && setFiles([]),
    );
    return () => {
      live = false;
    };
  }, []);
  const items = quickOpenItems(workspace, files ?? []);
  return (
    <PickerDialog
      label="Quick open"
      inputLabel="Type a name: agents, runs, tools, models, files"
      noun="Items"
      items={items}
      filter={(all, query) => rankQuickOpen(all as QuickItem[], query)}
      onPick={(item) => onOpen((item as QuickItem).target)}
      onClose={onClose}
      hint={`${files === null ? 'Reading the files… · ' : ''}↑ ↓ to pick · Enter to open · Esc to close`}
      optionClassName={(item) => `quick-${(item as QuickItem).target.kind}`}
    />
  );
}
