/**
 * The person at the studio, a STAND-IN for the e2e harness (test/e2e/bridge.ts): their answers at
 * main's own dialog (Electron's message box, which Chromium alone cannot show), and the input that
 * reaches the studio window (Electron's `input-event` and `before-input-event`).
 */
import { PERSON_INPUT_MAX_AGE_MS, PersonInputLog, type PersonInputJudge } from '../../main/core/studio/person-input.js';
import type { ConfirmWithPerson, PersonQuestion } from '../../main/core/studio/studio-trust.js';

/**
 * The harness's stand-in for the person's input reaching the studio window (Electron's
 * `input-event` and `before-input-event`, which Chromium under Playwright cannot give main):
 * `'just-now'` (the default): a click arrived in the studio window right before every call;
 * `'none'`: no input at all; `'other-window'`: a click arrived, in another window; `'stale'`: the
 * studio window's last click is older than the gate allows. The gate itself
 * (main/core/studio/person-input.ts) judges each call as in the app.
 */
export type PersonInputStandIn = 'just-now' | 'none' | 'other-window' | 'stale';

/**
 * The person, a stand-in. At main's own dialog: `asked` records each question (trusting a
 * workspace, sending a key to a new origin), `answers` are taken in order, then `fallback`.
 * At the keyboard and mouse: `input` says what input the studio window received before each call
 * (see {@link PersonInputStandIn}); approval:decide is refused without one.
 */
export class PersonStandIn {
  readonly asked: PersonQuestion[] = [];
  readonly answers: boolean[] = [];
  fallback = true;
  input: PersonInputStandIn = 'just-now';

  /** `studioWindow`: the studio window's `webContents` id, while it is open. */
  constructor(private readonly studioWindow: () => number | undefined) {}

  /** Main's own confirmation dialog, answered by this person. */
  readonly confirm: ConfirmWithPerson = async (question) => {
    this.asked.push(question);
    return this.answers.shift() ?? this.fallback;
  };

  /**
   * The gate's input, a stand-in: before each judgement, a fresh log gets what {@link input} says
   * the window received (a fresh press for every call, by default), and the real log judges it.
   */
  readonly personInput: PersonInputJudge = {
    judge: (windowId, nowMs) => {
      const log = new PersonInputLog();
      const studioWindow = this.studioWindow() ?? windowId;
      if (this.input === 'just-now') log.record(studioWindow, 'mouseDown', nowMs);
      if (this.input === 'other-window') log.record(studioWindow + 1, 'mouseDown', nowMs);
      if (this.input === 'stale') log.record(studioWindow, 'mouseDown', nowMs - PERSON_INPUT_MAX_AGE_MS - 1);
      return log.judge(windowId, nowMs);
    },
    // Each judgement starts from a fresh stand-in log, so there is nothing to use up.
    consume: () => undefined,
  };
}
