/**
 * The one form for a rule: the card's "Always allow…" (the narrowest rule for the call, to widen
 * before saving) and the Rules view's Edit. What the rule will let through, and what still asks,
 * comes from the core as the person changes it (`rules:describe`); saving goes through main, which
 * asks the person in its own dialog (`rules:save`).
 */
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { ServerIdentity } from '../../../common/approval-rules.js';
import type { CallRef, RuleDraft, RuleProposal, RuleWords } from '../../../common/rules-schemas.js';
import { DrawnPlain } from '../approvals/DefinitionChange';
import { call, describeError } from '../shell/studio-api';
import {
  CONDITION_KIND_LABELS,
  CONDITION_KINDS,
  draftOf,
  rowsOf,
  startText,
  type ConditionKind,
  type ConditionRow,
  type TargetChoice,
} from './rule-form';
import './rules.css';

/** How long typing must pause before the rule is sent to the core to be put in words. */
const DESCRIBE_DEBOUNCE_MS = 150;

/** What saving did. */
export interface SaveOutcome {
  saved: boolean;
  approved: boolean;
  note: string;
}

export interface RuleFormProps {
  /** The rule to start from (the narrowest for a call, or the rule being edited). */
  base: RuleDraft;
  /** The heading: "Always allow…", "Edit rule …". */
  title: string;
  /** The call's arguments, for a rule made from a card: each argument's row starts from its value. */
  args?: Record<string, unknown>;
  /** The core's ways to widen one argument (a URL's host, a path's folder). */
  suggestions?: RuleProposal['suggestions'];
  /** The tool's MCP server, when it has one: "every tool of this server" is offered. */
  server?: { identity: ServerIdentity; words: string };
  /** The open workspace's real path (what "this workspace" names). */
  workspace: string | null;
  /** The waiting call the rule is made for: saving runs it when the rule covers it. */
  callRef?: CallRef;
  /** The rule this one replaces (Edit). */
  replaces?: string;
  /** The rules file's revision the person saw (an edit is refused if the file changed since). */
  revision?: string;
  /** Whether the decision may be changed (Edit); "Always allow…" always allows. */
  decisionChoice?: boolean;
  /** The save button's text. */
  saveLabel: string;
  onCancel: () => void;
  /** The rule was saved (and, for a card, the call may have run). */
  onSaved: (outcome: SaveOutcome) => void;
}

function targetOf(base: RuleDraft): TargetChoice {
  if (base.server !== undefined) return { kind: 'server', server: base.server };
  if (base.tools !== undefined) return { kind: 'tools', glob: base.tools };
  return { kind: 'tool', alias: base.tool ?? '' };
}

export function RuleForm(props: RuleFormProps) {
  const { base, args, suggestions = [], server, workspace, callRef, replaces, revision } = props;
  const id = useId();
  const [decision, setDecision] = useState(base.decision);
  const alias = base.tool ?? '';
  const [target, setTarget] = useState<TargetChoice>(() => targetOf(base));
  const [glob, setGlob] = useState(base.tools ?? alias);
  const [where, setWhere] = useState(base.workspace);
  const [rows, setRows] = useState<ConditionRow[]>(() => rowsOf(base, args));
  /** The core's words, and the draft they are for. */
  const [described, setDescribed] = useState<{ key: string; words: RuleWords } | null>(null);
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const form = useRef<HTMLFormElement>(null);

  const made = draftOf(
    { ...base, decision },
    { target: target.kind === 'tools' ? { kind: 'tools', glob } : target, workspace: where, rows },
  );
  const draftKey = made.ok ? JSON.stringify(made.draft) : '';

  // The core says what the rule lets through while the person changes it; a late answer is dropped.
  const sequence = useRef(0);
  useEffect(() => {
    if (draftKey === '') return;
    const current = ++sequence.current;
    const timer = window.setTimeout(() => {
      call('rules:describe', {
        rule: JSON.parse(draftKey) as unknown,
        ...(callRef && { call: callRef }),
        ...(replaces !== undefined && { replaces }),
      }).then(
        (answer) => {
          if (current === sequence.current) setDescribed({ key: draftKey, words: answer });
        },
        (error: unknown) => {
          if (current === sequence.current)
            setDescribed({
              key: draftKey,
              words: { words: [], problems: [{ message: describeError(error), text: describeError(error) }] },
            });
        },
      );
    }, DESCRIBE_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [draftKey, callRef, replaces]);

  const setRow = (index: number, change: Partial<ConditionRow>): void =>
    setRows((current) => current.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const pickKind = (index: number, kind: ConditionKind): void => {
    const row = rows[index]!;
    const suggestion = suggestions.find(
      (candidate) =>
        candidate.pointer === row.pointer && candidate.condition[kind as 'inFolder' | 'urlHost'] !== undefined,
    )?.condition;
    setRow(index, { kind, text: startText(kind, row, suggestion) });
  };

  // The words shown are those of the rule on screen; while the core puts a change in words, the last ones stay, marked.
  const words = described?.words ?? null;
  const problems = [...(made.ok ? [] : [made.problem]), ...(words?.problems ?? []).map((problem) => problem.text)];
  const ready = made.ok && described !== null && described.key === draftKey && problems.length === 0;

  const save = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (saving) return;
    if (!ready) {
      // Never silently: the button stays reachable, and says why nothing happened.
      setMessage({
        text:
          problems.length > 0
            ? 'Not saved: the rule has problems (listed above).'
            : 'Not saved yet: the rule is still being put in words; press again in a moment.',
        error: problems.length > 0,
      });
      return;
    }
    setSaving(true);
    setMessage(null);
    try {
      const outcome = await call('rules:save', {
        rule: made.draft,
        ...(replaces !== undefined && { replaces }),
        ...(revision !== undefined && { revision }),
        ...(callRef && { approve: callRef }),
      });
      if (!outcome.saved) {
        setMessage({ text: 'Nothing was saved: you said no in the confirmation dialog.', error: false });
        return;
      }
      props.onSaved({ saved: true, approved: outcome.approved, note: outcome.note });
    } catch (error) {
      setMessage({ text: `Not saved: ${describeError(error)}`, error: true });
    } finally {
      setSaving(false);
    }
  };

  const radio = (name: string, checked: boolean, onChange: () => void, label: ReactNode, key: string) => (
    <label className="rule-choice" key={key}>
      <input type="radio" name={name} checked={checked} onChange={onChange} /> {label}
    </label>
  );

  return (
    <form
      ref={form}
      className="rule-form"
      aria-labelledby={`${id}-title`}
      onSubmit={(event) => void save(event)}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !saving) {
          event.stopPropagation();
          props.onCancel();
        }
      }}
    >
      <h4 id={`${id}-title`}>{props.title}</h4>
      {props.decisionChoice ? (
        <label className="rule-field">
          Decision{' '}
          <select
            className="text-input"
            value={decision}
            onChange={(event) => setDecision(event.target.value as RuleDraft['decision'])}
          >
            <option value="allow">allow: run without asking</option>
            <option value="ask">ask: always ask me</option>
            <option value="deny">deny: refuse without asking</option>
          </select>
        </label>
      ) : null}
      <fieldset className="rule-fieldset">
        <legend>Which tools</legend>
        {alias !== ''
          ? radio(
              `${id}-target`,
              target.kind === 'tool',
              () => setTarget({ kind: 'tool', alias }),
              <>
                this tool: <code>{alias}</code>
              </>,
              'tool',
            )
          : null}
        {server
          ? radio(
              `${id}-target`,
              target.kind === 'server',
              () => setTarget({ kind: 'server', server: server.identity }),
              <>
                every tool of its MCP server <code>{server.words}</code>
              </>,
              'server',
            )
          : target.kind === 'server'
            ? radio(`${id}-target`, true, () => undefined, <>every tool of the MCP server the rule names</>, 'server')
            : null}
        {radio(
          `${id}-target`,
          target.kind === 'tools',
          () => setTarget({ kind: 'tools', glob }),
          'tools whose alias matches a glob',
          'tools',
        )}
        {target.kind === 'tools' ? (
          <input
            className="text-input rule-text"
            aria-label="Glob of tool aliases (* and ?)"
            value={glob}
            onChange={(event) => setGlob(event.target.value)}
          />
        ) : null}
      </fieldset>
      <fieldset className="rule-fieldset">
        <legend>Where</legend>
        {workspace !== null
          ? radio(
              `${id}-where`,
              where === workspace,
              () => setWhere(workspace),
              <>
                this workspace <span className="muted small">{workspace}</span>
              </>,
              'here',
            )
          : null}
        {where !== '*' && where !== workspace
          ? radio(
              `${id}-where`,
              true,
              () => undefined,
              <>
                the workspace <span className="muted small">{where}</span>
              </>,
              'other',
            )
          : null}
        {radio(`${id}-where`, where === '*', () => setWhere('*'), 'every workspace', 'all')}
      </fieldset>
      {rows.length > 0 ? (
        <fieldset className="rule-fieldset">
          <legend>Arguments</legend>
          {rows.map((row, index) => {
            const rowId = `${id}-row-${index}`;
            const many = row.kind === 'oneOf' || row.kind === 'urlHost';
            return (
              <div className="condition-row" key={row.pointer}>
                <label htmlFor={`${rowId}-kind`} className="condition-pointer">
                  <code>
                    <DrawnPlain text={row.pointer} />
                  </code>
                </label>
                <select
                  id={`${rowId}-kind`}
                  className="text-input"
                  value={row.kind}
                  onChange={(event) => pickKind(index, event.target.value as ConditionKind)}
                >
                  {CONDITION_KINDS.map((kind) => (
                    <option key={kind} value={kind}>
                      {CONDITION_KIND_LABELS[kind]}
                    </option>
                  ))}
                </select>
                {row.kind === 'any' ? null : many ? (
                  <textarea
                    className="text-input rule-text"
                    aria-label={`${row.pointer}: ${CONDITION_KIND_LABELS[row.kind]}`}
                    rows={Math.min(5, Math.max(2, row.text.split('\n').length))}
                    value={row.text}
                    onChange={(event) => setRow(index, { text: event.target.value })}
                  />
                ) : (
                  <input
                    className="text-input rule-text"
                    aria-label={`${row.pointer}: ${CONDITION_KIND_LABELS[row.kind]}`}
                    value={row.text}
                    onChange={(event) => setRow(index, { text: event.target.value })}
                  />
                )}
              </div>
            );
          })}
        </fieldset>
      ) : null}
      <div className="rule-words" aria-live="polite">
        <h5>What it will do</h5>
        {problems.length > 0 ? (
          <ul className="problem-list" aria-label="Problems with the rule">
            {problems.map((problem) => (
              <li key={problem} className="error-text small">
                {problem}
              </li>
            ))}
          </ul>
        ) : words === null ? (
          <p className="muted small">Putting the rule in words…</p>
        ) : (
          <>
            {words.words.map((sentence) => (
              <p key={sentence} className="small">
                <DrawnPlain text={sentence} />
              </p>
            ))}
            {words.call ? (
              <p className={`small ${words.call.covered ? 'ok-text' : 'muted'}`}>
                <DrawnPlain text={words.call.why} />
              </p>
            ) : null}
          </>
        )}
      </div>
      <div className="button-row">
        {/* aria-disabled, not disabled: focus stays on the button while main's dialog asks. */}
        <button type="submit" className="button button-primary" aria-disabled={!ready || saving}>
          {props.saveLabel}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            if (!saving) props.onCancel();
          }}
          aria-disabled={saving}
        >
          Cancel
        </button>
      </div>
      {saving ? (
        <p className="muted small" role="status">
          Waiting for your answer in the confirmation dialog…
        </p>
      ) : null}
      {message ? (
        <p className={message.error ? 'error-text small' : 'muted small'} role={message.error ? 'alert' : 'status'}>
          {message.text}
        </p>
      ) : null}
    </form>
  );
}
