import type { RecordedDecision as Decision } from '../../../common/run-events.js';

/** Who a decision's `source` stands for, in the studio's words. */
export function decidedBy(source: Decision['source']): string {
  switch (source) {
    case 'studio':
      return 'you';
    case 'cli-prompt':
      return 'a person at the terminal prompt';
    case 'replay':
      return 'the recording';
    case 'policy':
      return 'policy';
  }
}

/**
 * Who decided, as the end of "Approved …": `by you`, `by policy`, or, for a decision a replay
 * took from its recording, `in the recorded run`.
 */
export function decidedPhrase(source: Decision['source']): string {
  return source === 'replay' ? 'in the recorded run' : `by ${decidedBy(source)}`;
}

/**
 * A recorded reason in the studio's words: the CLI's `--approve auto|deny` is the run's approval
 * policy (`approved by --approve auto` → `policy: auto`). Other reasons are shown as recorded.
 */
export function studioReason(reason: string): string {
  const flag = /^(?:approved|denied) by --approve (\w+)$/.exec(reason);
  return flag ? `policy: ${flag[1]}` : reason;
}

/** One sentence in parts, so the alias can be shown as code. */
export interface ScopeText {
  before: string;
  alias: string;
  after: string;
}

/**
 * What "allow for this run" allows, exactly as the approval gate applies it: later calls of the
 * alias in this run skip the person only when their arguments carry no untrusted text, and only
 * while the tool's definition stays the one allowed (a redefined tool asks again). A tool whose
 * taint check is off never counts as tainted, so every later call of it is allowed.
 */
export function allowForRunScope(alias: string, taintCheck: boolean, by: string | undefined): ScopeText {
  const head = by === undefined ? 'Allow for this run covers' : `Allowed for this run ${by}`;
  return taintCheck
    ? {
        before: `${head}: untainted calls of `,
        alias,
        after: ', as long as the tool stays as it is now. Tainted calls will still ask.',
      }
    : {
        before: `${head}: every call of `,
        alias,
        after: ', as long as the tool stays as it is now (its taint check is off).',
      };
}

/** The plain-text form of a {@link ScopeText}, for screen-reader announcements and titles. */
export function scopeSentence(text: ScopeText): string {
  return `${text.before}${text.alias}${text.after}`;
}

/**
 * What the conversation says about a decision: who decided and what it covered. `taintCheck` is
 * the tool's setting (true when unknown, the safe reading).
 */
export function describeDecision(decision: Decision, alias: string, taintCheck: boolean): ScopeText {
  const by = decidedPhrase(decision.source);
  const why = decision.reason !== undefined ? ` (${studioReason(decision.reason)})` : '';
  switch (decision.kind) {
    case 'allow-for-run':
      return allowForRunScope(alias, taintCheck, by);
    case 'approve':
      return { before: `Approved ${by}${why}`, alias: '', after: '' };
    case 'approve-edited':
      return { before: `Approved with edited arguments ${by}`, alias: '', after: '' };
    case 'deny':
      return { before: `Denied ${by}${why}`, alias: '', after: '' };
    case 'cancelled':
      return { before: `Cancelled${why}`, alias: '', after: '' };
  }
}
