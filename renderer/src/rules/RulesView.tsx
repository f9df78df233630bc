/**
 * The Rules view: every approval rule of the person (the file in their config folder), with its
 * scope, decision and conditions in words, what it decided last and when, whether it is on, the
 * rules it conflicts with and a tool that is gone; Edit (the rule form), Turn off / on, Delete. A
 * file that cannot be read is shown with its problems, and the fact that no rule applies. It
 * follows the file: an edit made by `promptforge rules` or by hand shows at once.
 */
import { useRef, useState } from 'react';
import type { RuleRowInfo, RulesListing } from '../../../common/rules-schemas.js';
import { DrawnPlain } from '../approvals/DefinitionChange';
import { call, describeError } from '../shell/studio-api';
import { draftFromRule } from './rule-form';
import { RuleForm } from './RuleForm';
import { rulesStore, useRules } from './rules-store';
import './rules.css';

const EXAMPLE = `version: 1
rules:
  - id: read-docs
    decision: allow
    workspace: "*"
    tool: fetch_url
    when:
      - { pointer: /url, urlHost: [docs.example.org] }
  - id: never-delete
    decision: deny
    workspace: "*"
    tools: "*.delete_*"`;

function scopeWords(row: RuleRowInfo, listing: RulesListing): string {
  if (row.rule.workspace === '*') return 'every workspace';
  if (row.rule.workspace === listing.workspace) return 'this workspace';
  return `another workspace: ${row.rule.workspace}`;
}

function lastUsedWords(row: RuleRowInfo): string {
  if (!row.lastUsed) return 'It has not decided a call yet.';
  const when = new Date(row.lastUsed.at);
  const at = Number.isNaN(when.getTime()) ? row.lastUsed.at : when.toLocaleString();
  return `It last decided a call of ${row.lastUsed.alias} at ${at} (${row.lastUsed.count} in all).`;
}

/** One rule, with its actions. */
function RuleRow({ row, listing, onGone }: { row: RuleRowInfo; listing: RulesListing; onGone: () => void }) {
  const { rule } = row;
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const titleId = `rule-${rule.id}`;

  const act = async (run: () => Promise<string>): Promise<void> => {
    if (busy) return;
    setBusy(true);
    setStatus(null);
    try {
      setStatus({ text: await run(), error: false });
    } catch (error) {
      setStatus({ text: describeError(error), error: true });
    } finally {
      setBusy(false);
    }
  };
  const toggle = () =>
    act(async () => {
      const enabled = !row.enabled;
      const result = await call('rules:set-enabled', { id: rule.id, enabled, revision: listing.revision });
      rulesStore.apply(result.listing);
      if (!result.changed) return 'Nothing was changed: you said no in the confirmation dialog.';
      return enabled ? 'Turned on.' : 'Turned off: it decides nothing until you turn it on again.';
    });
  const remove = () =>
    act(async () => {
      const result = await call('rules:delete', { id: rule.id, revision: listing.revision });
      if (result.deleted) {
        // The row goes away: focus goes to the view, which says what happened.
        onGone();
        rulesStore.apply(result.listing);
        return '';
      }
      rulesStore.apply(result.listing);
      return 'Nothing was deleted: you said no in the confirmation dialog.';
    });

  return (
    <li className="rule-row">
      <article aria-labelledby={titleId} className={row.enabled ? 'rule-card' : 'rule-card rule-off'}>
        <header className="rule-card-header">
          <h3 id={titleId}>
            <code>{rule.id}</code>
          </h3>
          <span className={`decision-badge decision-${rule.decision}`}>{rule.decision}</span>
          {row.enabled ? null : <span className="tag">off</span>}
          {row.appliesHere ? null : <span className="tag">not this workspace</span>}
        </header>
        <p className="rule-words-line">
          <DrawnPlain text={row.words} />
        </p>
        <dl className="details rule-details">
          <div className="details-row">
            <dt>Where</dt>
            <dd>
              <DrawnPlain text={scopeWords(row, listing)} />
            </dd>
          </div>
          <div className="details-row">
            <dt>Last used</dt>
            <dd>{lastUsedWords(row)}</dd>
          </div>
          {rule.note ? (
            <div className="details-row">
              <dt>Note</dt>
              <dd>
                <DrawnPlain text={rule.note} />
              </dd>
            </div>
          ) : null}
        </dl>
        {row.missingTool !== undefined ? (
          <p className="rule-missing small">
            ⚠ No tool <code>{row.missingTool}</code> in this workspace any more (its catalog, or the MCP servers listed
            so far): the rule matches nothing here.
          </p>
        ) : null}
        {row.conflicts.length > 0 ? (
          <ul className="rule-conflicts small" aria-label={`Conflicts of rule ${rule.id}`}>
            {row.conflicts.map((conflict) => (
              <li key={conflict}>
                <DrawnPlain text={conflict.charAt(0).toUpperCase() + conflict.slice(1)} />
              </li>
            ))}
          </ul>
        ) : null}
        {editing ? (
          <RuleForm
            base={draftFromRule(rule)}
            title={`Edit rule ${rule.id}`}
            workspace={listing.workspace}
            replaces={rule.id}
            revision={listing.revision}
            decisionChoice
            saveLabel="Save the change…"
            onCancel={() => {
              setEditing(false);
              requestAnimationFrame(() => editButton.current?.focus());
            }}
            onSaved={(outcome) => {
              setEditing(false);
              setStatus({ text: outcome.note, error: false });
              requestAnimationFrame(() => editButton.current?.focus());
            }}
          />
        ) : (
          <div className="button-row" role="group" aria-label={`Rule ${rule.id}`}>
            <button type="button" className="button" ref={editButton} onClick={() => setEditing(true)}>
              Edit…
            </button>
            <button type="button" className="button" aria-disabled={busy} onClick={() => void toggle()}>
              {row.enabled ? 'Turn off' : 'Turn on'}
            </button>
            <button type="button" className="button button-danger" aria-disabled={busy} onClick={() => void remove()}>
              Delete…
            </button>
          </div>
        )}
        {busy ? (
          <p className="muted small" role="status">
            Working… (if the studio asks in its confirmation dialog, answer there)
          </p>
        ) : status && status.text !== '' ? (
          <p className={status.error ? 'error-text small' : 'muted small'} role={status.error ? 'alert' : 'status'}>
            {status.text}
          </p>
        ) : null}
      </article>
    </li>
  );
}

/** What the view says when there is no rule yet: what a rule is, and how to make one. */
function EmptyRules({ file }: { file: string }) {
  return (
    <div className="rules-empty">
      <h3>No rules yet</h3>
      <p>
        A rule is a decision you make once: <strong>allow</strong>, <strong>ask</strong> or <strong>deny</strong> the
        tool calls it matches, in one workspace or in all of them. Deny rules win over ask rules, which win over allow
        rules.
      </p>
      <ul>
        <li>
          On a waiting call, <strong>Always allow…</strong> proposes the narrowest rule for it (this tool, these
          arguments, this workspace), which you can widen before saving.
        </li>
        <li>
          In a terminal: <code>promptforge rules add allow --tool fetch_url --when /url=https://docs.example.org</code>
        </li>
        <li>
          Or by hand, in <code>{file}</code>:
        </li>
      </ul>
      <pre className="code-block small">{EXAMPLE}</pre>
      <p className="muted small">
        An allow rule covers only the tool definitions you confirmed it on, and calls whose arguments carry untrusted
        text still ask. Rules live in your config folder: a workspace can never add one.
      </p>
    </div>
  );
}

export function RulesView() {
  const { listing, error } = useRules();
  const heading = useRef<HTMLHeadingElement>(null);
  const [gone, setGone] = useState('');
  return (
    <section className="rules-view" aria-labelledby="rules-view-title">
      <header className="rules-view-header">
        <h2 id="rules-view-title" ref={heading} tabIndex={-1}>
          Approval rules
        </h2>
        {listing ? (
          <p className="muted small">
            Kept in <code>{listing.file}</code>, your config folder, never in a workspace. The studio and{' '}
            <code>promptforge rules</code> both edit it; changes show here as they happen.
          </p>
        ) : null}
        <p className="visually-hidden" role="status">
          {gone}
        </p>
      </header>
      {error !== null ? (
        <p className="error-text" role="alert">
          The rules could not be read: {error}
        </p>
      ) : null}
      {listing === null ? (
        error === null ? (
          <p className="muted">Reading the rules…</p>
        ) : null
      ) : (
        <div className="rules-body">
          {listing.state === 'broken' ? (
            <div className="rules-problem" role="alert">
              <h3>The rules file cannot be read</h3>
              <p>
                No rule applies, and every call asks, until it is fixed. Fix it in an editor (or move it away): this
                view follows the file.
              </p>
              <ul>
                {listing.problems.map((problem) => (
                  <li key={problem.text}>
                    <code className="problem-text">
                      <DrawnPlain text={problem.text} />
                    </code>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {listing.warnings.length > 0 ? (
            <div className="rules-warnings">
              <h3>{listing.state === 'ignored' ? 'Your rules are ignored' : 'Ignored rules files'}</h3>
              <ul>
                {listing.warnings.map((warning) => (
                  <li key={warning}>
                    <DrawnPlain text={warning} />
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {listing.rules.length === 0 && listing.state !== 'broken' ? <EmptyRules file={listing.file} /> : null}
          {listing.rules.length > 0 ? (
            <>
              <p className="muted small">
                The order: deny rules win over ask rules, which win over allow rules; among rules of one kind, the first
                in the file decides. When no rule decides, the tool&apos;s own policy does.
              </p>
              <ul className="rules-list" aria-label="Rules">
                {listing.rules.map((row) => (
                  <RuleRow
                    key={row.rule.id}
                    row={row}
                    listing={listing}
                    onGone={() => {
                      setGone(`Rule ${row.rule.id} was deleted.`);
                      heading.current?.focus();
                    }}
                  />
                ))}
              </ul>
            </>
          ) : null}
          {listing.trustedServers.length > 0 ? (
            <div className="rules-trusted">
              <h3>Servers you trust to describe their tools</h3>
              <p className="muted small">Their annotations (read-only, destructive…) may count in rules.</p>
              <ul>
                {listing.trustedServers.map((server) => (
                  <li key={server}>
                    <code>
                      <DrawnPlain text={server} />
                    </code>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      )}
    </section>
  );
}
