import type { ContractMethodName } from '../../../common/contract.js';

/**
 * The person-input gate: a decision on a tool call must follow a real click or key press in the
 * studio window. The renderer is not the person. A script in the page (injected through a
 * tool output the sanitiser missed, a compromised dependency of the UI) can call
 * `window.promptforge['approval:decide']` and can even `dispatchEvent` a synthetic click, but it
 * cannot make the operating system deliver input to the window. Electron reports that input to
 * main through the window's `webContents` events `input-event` (mouse, keyboard, touch) and
 * `before-input-event` (keyboard); main/app records them into a {@link PersonInputLog}, and the
 * IPC registration asks the log before it serves a method of {@link PERSON_INPUT_METHODS}.
 *
 * What the gate cannot tell: which element the input was meant for. A page script that waits for
 * the person to type anywhere in the studio can decide within {@link PERSON_INPUT_MAX_AGE_MS} of a
 * key press. The gate narrows the attack from "any time" to "right after the person touches the
 * window", and the cards' own rules (a card decides only once armed, and single-key decisions
 * only after the person clicked or tabbed into it) hold for the UI's own path. Assistive
 * technology that activates a button through the accessibility tree (a screen reader's "press"
 * in browse mode) sends no input event: such a person decides with the card's keys or a click.
 *
 * Plain TypeScript, no Electron: main/app passes the events in, the tests pass times in.
 */

/**
 * How long a click or key press counts, in milliseconds: 3 s. A decision made by the person
 * reaches main a few milliseconds after the click or key that made it (the press, React's handler,
 * one IPC hop), and up to a second or so when the machine is very busy (a long run streaming,
 * a large transcript rendering), so 3 s never refuses a person who just decided. It is short
 * enough that a script waiting for unrelated input gets a narrow window, and a person who
 * walked away cannot have a decision taken in their name long after.
 */
export const PERSON_INPUT_MAX_AGE_MS = 3_000;

/**
 * The input types (Electron's `InputEvent.type`, and `Input.type` of `before-input-event`) that
 * count as a person's act: the press of a key, a button or a finger. One act is one press: its
 * release, the character it types and the tap gesture that follows are the same act, and would
 * otherwise hand a waiting script a second one. Moving the pointer over the window, the wheel,
 * hovering and scrolling gestures do not count: they happen without intent. Nor does a key held
 * down: its repeats ({@link isAutoRepeat}) are the same press.
 */
export const PERSON_INPUT_TYPES: ReadonlySet<string> = new Set([
  'mouseDown',
  'rawKeyDown',
  'keyDown',
  'pointerDown',
  'touchStart',
]);

/** What main reads of one input event: Electron's `Input` (`before-input-event`) or `InputEvent` (`input-event`). */
export interface PersonInputEvent {
  readonly type: string;
  /** `before-input-event`: true for the repeats of a key held down. */
  readonly isAutoRepeat?: boolean;
  /** `input-event`: its modifiers, `isautorepeat` among them for a repeat (`isAutoRepeat` in older Electron). */
  readonly modifiers?: readonly string[];
}

/**
 * Whether `input` is a key held down repeating (the operating system sends the repeats, not the
 * person): a held key is one press, so its repeats never count as more.
 */
export function isAutoRepeat(input: PersonInputEvent): boolean {
  return input.isAutoRepeat === true || (input.modifiers ?? []).some((name) => name.toLowerCase() === 'isautorepeat');
}

/** Whether `input` counts as a press of its own (see {@link PERSON_INPUT_TYPES}; a key's repeats do not). */
export function isPersonPress(input: PersonInputEvent): boolean {
  return PERSON_INPUT_TYPES.has(input.type) && !isAutoRepeat(input);
}

/**
 * The contract methods that are served only right after a person's input in the studio window,
 * and use it up: deciding a call, answering an MCP server's question, and everything that opens
 * one of main's own dialogs or the person's browser (so a page cannot raise dialog after dialog to
 * wear the person down). Each needs a press of its own.
 */
export const PERSON_INPUT_METHODS: ReadonlySet<ContractMethodName> = new Set<ContractMethodName>([
  'approval:decide',
  'keys:set',
  'keys:delete',
  'trust:grant',
  'trust:allow-key-origin',
  'workspace:choose',
  'history:export',
  'file:delete',
  'rules:save',
  'rules:delete',
  // An MCP server's question is answered by the person only; signing in opens their browser, and
  // signing out asks in main's own dialog.
  'mcp:answer',
  'mcp:decide-sampling',
  'mcp:login',
  'mcp:logout',
  // The person's spending cap: a page script must not lift it before starting runs.
  'settings:set-spending-cap',
]);

/**
 * The contract methods served without a person's input that may still ask the person when a press
 * came with the call: starting or forking a run, which asks about a model's new destination
 * before the run starts (see {@link PersonPress}), and turning an approval rule on or off, which
 * asks only when the change may let calls run without asking. A press that came with one of them is used up
 * by it, whether or not it asks.
 */
export const MAY_ASK_METHODS: ReadonlySet<ContractMethodName> = new Set<ContractMethodName>([
  'run:start',
  'run:fork',
  'rules:set-enabled',
]);

/** Whether contract method `method` needs a person's input first (see {@link PERSON_INPUT_METHODS}). */
export function needsPersonInput(method: string): boolean {
  return (PERSON_INPUT_METHODS as ReadonlySet<string>).has(method);
}

/** Whether a press that came with a call of `method` pays for it (it needs one, or may ask). */
export function pressPaysFor(method: string): boolean {
  return needsPersonInput(method) || (MAY_ASK_METHODS as ReadonlySet<string>).has(method);
}

/**
 * The person's press that came with one contract call, as far as main's own dialogs are
 * concerned: every dialog main shows (a question, the folder picker, the save dialog) must be
 * paid for by one. A press pays for at most one dialog, and only while the call it came with is
 * being served: a question that comes up later (a run picking a model in its middle) or a second
 * question in the same call is not asked. The IPC registration makes one per call; nothing the
 * page sends can make one.
 */
export interface PersonPress {
  /** Uses the press for one dialog: true the first time, while its call is served; false otherwise. */
  spend(): boolean;
  /** Why no dialog can be paid for now: a sentence that says how to act. */
  readonly refusal: string;
}

/** The press of one call (see {@link PersonPress}); the registration {@link CallPress.end}s it when the call is answered. */
export class CallPress implements PersonPress {
  private state: 'paid' | 'spent' | 'unpaid' | 'ended';

  /** `paid`: a fresh press of the studio window came with the call (and was used up for it). */
  private constructor(paid: boolean) {
    this.state = paid ? 'paid' : 'unpaid';
  }

  /** A call a fresh press came with (the registration judged and used it up). */
  static paid(): CallPress {
    return new CallPress(true);
  }

  /** A call no press came with: it may not open any dialog. */
  static unpaid(): CallPress {
    return new CallPress(false);
  }

  spend(): boolean {
    if (this.state !== 'paid') return false;
    this.state = 'spent';
    return true;
  }

  /** The call was answered: nothing it started may ask any more. */
  end(): void {
    if (this.state !== 'unpaid') this.state = 'ended';
  }

  get refusal(): string {
    switch (this.state) {
      case 'spent':
        return 'the click or key press that came with this request already paid for another question; each question needs a press of its own';
      case 'ended':
        return 'main asks only while it answers the click or key press that asked for it, never later (as in the middle of a run)';
      default:
        return 'main opens its dialogs only right after your own click or key press in the studio window, and none came with this request';
    }
  }
}

/** A press that pays for nothing: for calls made without the IPC registration (the CLI's own code paths, tests). */
export const NO_PRESS: PersonPress = {
  spend: () => false,
  refusal:
    'main opens its dialogs only right after your own click or key press in the studio window, and none came with this request',
};

/** Why a call was or was not preceded by a person's input. */
export type PersonInputVerdict =
  { ok: true } | { ok: false; reason: 'no-input' | 'other-window' | 'stale' | 'used'; message: string };

/**
 * What the IPC registration asks: was there a person's input in window `windowId` just now? When
 * it serves the call, it {@link consume}s that input: one press pays for one call.
 */
export interface PersonInputJudge {
  judge(windowId: number, nowMs: number): PersonInputVerdict;
  consume(windowId: number): void;
}

/**
 * The clock both sides use: main records input with it and the registration judges with it.
 * Monotonic (`performance.now()`), so a change of the wall clock moves neither.
 */
export function personInputClock(): number {
  return performance.now();
}

const seconds = `${PERSON_INPUT_MAX_AGE_MS / 1000} s`;
const advice = 'act with the mouse or the keyboard in the studio window.';

/**
 * The last counting input of each window. Record every `input-event` and `before-input-event`
 * of the windows that may decide; {@link judge} answers for one window at one time.
 */
export class PersonInputLog implements PersonInputJudge {
  /** Window id -> when its last counting input arrived. */
  private readonly lastInput = new Map<number, number>();
  /** Window id -> which input (by arrival order) a served call used up. */
  private readonly spent = new Map<number, number>();
  /** Window id -> the arrival order of its last counting input (two presses may share a time). */
  private readonly lastSequence = new Map<number, number>();
  private sequence = 0;

  /**
   * Records input in window `windowId` at `atMs`: `input` is the event, or its type alone. False
   * (and nothing recorded) when it is no press of its own: a type that does not count, or a held
   * key repeating.
   */
  record(windowId: number, input: string | PersonInputEvent, atMs: number): boolean {
    if (!isPersonPress(typeof input === 'string' ? { type: input } : input)) return false;
    // The latest arrival wins, even when its time is earlier (a clock that went back).
    this.lastInput.set(windowId, atMs);
    this.lastSequence.set(windowId, ++this.sequence);
    return true;
  }

  /** Forgets window `windowId` (it closed; a new window may get its id later). */
  forget(windowId: number): void {
    this.lastInput.delete(windowId);
    this.lastSequence.delete(windowId);
    this.spent.delete(windowId);
  }

  /** Uses up window `windowId`'s last input: the next call needs a press of its own. */
  consume(windowId: number): void {
    const last = this.lastSequence.get(windowId);
    if (last !== undefined) this.spent.set(windowId, last);
  }

  /** Whether window `windowId` received a counting input within {@link PERSON_INPUT_MAX_AGE_MS} before `nowMs`. */
  judge(windowId: number, nowMs: number): PersonInputVerdict {
    const here = this.lastInput.get(windowId);
    const fresh = here !== undefined && nowMs >= here && nowMs - here <= PERSON_INPUT_MAX_AGE_MS;
    if (fresh && this.spent.get(windowId) === this.lastSequence.get(windowId))
      return {
        ok: false,
        reason: 'used',
        message: `The last click or key press in the studio window was already used for another request; each needs its own: ${advice}`,
      };
    if (fresh) return { ok: true };
    const elsewhere = [...this.lastInput].some(
      ([id, at]) => id !== windowId && nowMs >= at && nowMs - at <= PERSON_INPUT_MAX_AGE_MS,
    );
    if (elsewhere) {
      return {
        ok: false,
        reason: 'other-window',
        message: `The last click or key press went to another window, not the studio window: ${advice}`,
      };
    }
    if (here !== undefined && nowMs < here) {
      return {
        ok: false,
        reason: 'stale',
        message: `The last click or key press in the studio window is dated after now (the clock went back): ${advice}`,
      };
    }
    if (here !== undefined) {
      return {
        ok: false,
        reason: 'stale',
        message: `The last click or key press in the studio window was more than ${seconds} ago: ${advice}`,
      };
    }
    return {
      ok: false,
      reason: 'no-input',
      message: `No click or key press reached the studio window in the last ${seconds}: ${advice}`,
    };
  }
}
