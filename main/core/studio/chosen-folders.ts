/**
 * The folders main handed to the page: the folder dialog's answers and the example workspace (the
 * recent workspaces are the third source, recent-workspaces.ts). The page may open a workspace only
 * at one of them (`workspace:open`), so a script in the page cannot open a folder nobody chose,
 * whatever path it builds.
 */
import { realpathSync } from 'node:fs';
import { ContractError } from './contract-error.js';

/** Real path of `folder`, or null when it does not resolve (gone, unreadable). */
function realFolder(folder: string): string | null {
  try {
    return realpathSync(folder);
  } catch {
    return null;
  }
}

export class ChosenFolders {
  /** Each path exactly as it was handed out, with the folder it resolved to then. */
  private readonly folders = new Map<string, string>();

  /** Records `folder` as handed out by main (a dialog's answer, the example). Returns it unchanged. */
  add(folder: string): string {
    const real = realFolder(folder);
    if (real !== null) this.folders.set(folder, real);
    return folder;
  }

  /** Whether main handed out exactly `requested`. */
  has(requested: string): boolean {
    return this.folders.has(requested);
  }

  /**
   * The real path to open for `requested`, when main handed out exactly that path and it still
   * resolves to the same folder; otherwise refuses (`not-chosen`). No normalising: a `..`, a
   * trailing slash, a symlink or a change of case is a different path, and a folder swapped for a
   * link since it was chosen is a different folder. The caller opens the real path returned, never
   * `requested` again: a link swapped in after this check does not move the workspace.
   */
  check(requested: string): string {
    const real = this.folders.get(requested);
    if (real === undefined) throw notChosen(requested);
    const now = realFolder(requested);
    if (now !== real)
      throw new ContractError(
        'not-chosen',
        now === null
          ? `refused to open "${requested}": it no longer exists. Choose a folder again with "Open folder…".`
          : `refused to open "${requested}": it resolved to ${real} when it was chosen and resolves to ${now} now. ` +
              'Choose it again with "Open folder…".',
      );
    return real;
  }
}

/** The refusal of a path main never handed out. */
export function notChosen(requested: string): ContractError {
  return new ContractError(
    'not-chosen',
    `refused to open "${requested}": the studio opens only a folder chosen in its Open folder dialog, ` +
      'a recent workspace, or the example workspace. Choose it with "Open folder…".',
  );
}
