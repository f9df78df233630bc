/**
 * Main's own dialogs (a question, the folder picker, the save dialog), the one way the studio asks
 * the person: each is shown only when a press of the person paid for it (see {@link PersonPress}),
 * and one at a time.
 */
import { ContractError } from './contract-error.js';
import type { PersonPress } from './person-input.js';
import type { ConfirmWithPerson, PersonQuestion } from './studio-trust.js';

/** The host's dialogs (Electron's, or a test's stand-ins); a missing one cannot be shown at all. */
export interface DialogHost {
  /** Asks the person a yes/no question in a native message box; true only for the `confirm` button. */
  confirmPerson?: ConfirmWithPerson;
  /** Shows the OS folder picker; `null` when cancelled. */
  chooseFolder?: () => Promise<string | null>;
  /** Shows the OS save dialog suggesting `suggestedName`; the chosen absolute path, `null` when cancelled. */
  chooseSaveFile?: (suggestedName: string) => Promise<string | null>;
}

export class PersonDialogs {
  /** The title of the dialog on screen, if one is. */
  private open: string | undefined;

  constructor(private readonly host: DialogHost) {}

  /** Whether this host can ask the person a question at all. */
  get canConfirm(): boolean {
    return this.host.confirmPerson !== undefined;
  }

  /** Asks `question`, paid for by `press`; true only when the person chose its `confirm` button. */
  confirm(press: PersonPress, question: PersonQuestion): Promise<boolean> {
    const confirmPerson = this.host.confirmPerson;
    if (!confirmPerson) throw new ContractError('not-supported', 'this host cannot ask the person');
    return this.show(press, question.title, () => confirmPerson(question));
  }

  /** The folder picker, paid for by `press`. */
  chooseFolder(press: PersonPress): Promise<string | null> {
    const chooseFolder = this.host.chooseFolder;
    if (!chooseFolder) throw new ContractError('not-supported', 'this host cannot show a folder picker');
    return this.show(press, 'Open a workspace folder', chooseFolder);
  }

  /** The save dialog suggesting `suggestedName`, paid for by `press`. */
  chooseSaveFile(press: PersonPress, suggestedName: string): Promise<string | null> {
    const chooseSaveFile = this.host.chooseSaveFile;
    if (!chooseSaveFile) throw new ContractError('not-supported', 'this host cannot show a save dialog');
    return this.show(press, 'Export the run transcript', () => chooseSaveFile(suggestedName));
  }

  /**
   * Shows one dialog: refused (`person-busy`) while another is open, so a page cannot stack
   * dialogs and an answer always belongs to the dialog on screen; refused (`no-person-input`) when
   * no unused press of the person came with the call that asks.
   */
  private async show<T>(press: PersonPress, title: string, dialog: () => Promise<T>): Promise<T> {
    if (this.open !== undefined)
      throw new ContractError(
        'person-busy',
        `"${title}" was not asked: the studio is already asking you "${this.open}" in its own dialog. Answer that first, then try again.`,
      );
    if (!press.spend()) throw new ContractError('no-person-input', `"${title}" was not asked: ${press.refusal}.`);
    this.open = title;
    try {
      return await dialog();
    } finally {
      this.open = undefined;
    }
  }
}
