import { useEffect, useId, useRef, useState } from 'react';
import type { ManifestItem, WorkspaceTrustInfo } from '../../../common/trust-schemas.js';
import { call, describeError, StudioCallError } from '../shell/studio-api';
import { trustStore } from './trust-store';
import { countOf, groupManifest, shortHash, warningCount } from './trust-text';

/** What the dialog says after the person's last step. */
type Outcome =
  | { kind: 'asking' }
  | { kind: 'declined' }
  | { kind: 'granted' }
  | { kind: 'changed' }
  | { kind: 'failed'; message: string };

function ItemEntry({ item }: { item: ManifestItem }) {
  return (
    <li className={`trust-item${item.warnings.length > 0 ? ' has-warnings' : ''}`}>
      <div className="trust-item-head">
        <span className="trust-item-title">{item.title}</span>
        <span className="muted small trust-item-source">{item.source}</span>
      </div>
      {item.details.length > 0 ? (
        <ul className="trust-details">
          {item.details.map((detail, index) => (
            <li key={index}>{detail}</li>
          ))}
        </ul>
      ) : null}
      {item.warnings.length > 0 ? (
        <ul className="trust-warnings" aria-label={`Warnings about ${item.title}`}>
          {item.warnings.map((warning, index) => (
            <li key={index} className="trust-warning">
              <span className="trust-warning-mark" aria-hidden="true">
                ⚠
              </span>
              <strong>Warning:</strong> {warning}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** What it is now, in a sentence. */
function stateSentence(trust: WorkspaceTrustInfo): string {
  if (trust.state === 'trusted') return 'This workspace is trusted: it may run what is listed here.';
  if (trust.state === 'empty') return 'This workspace runs nothing of its own and sends no secrets: nothing to trust.';
  return 'Now in Restricted mode: none of this runs until you trust it.';
}

/**
 * The review of the open workspace: what changed since the person trusted it (first), what it
 * would run grouped by kind with its warnings marked in words, and the files whose contents the
 * trust covers. "Trust this workspace…" hands the decision to main's own confirmation dialog, for
 * exactly the manifest shown here (its digest). Every text from the workspace is a text node.
 *
 * A native modal `<dialog>`: focus moves to its heading, Esc closes it, and focus goes back to the
 * button that opened it (trust-store.ts).
 */
export function TrustReviewDialog({ live }: { live: WorkspaceTrustInfo }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  // What the person is reading: kept as it was opened, so the digest granted is the one shown.
  const [shown, setShown] = useState<WorkspaceTrustInfo>(live);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const asking = outcome?.kind === 'asking';
  const changedSinceShown = live.digest !== shown.digest || live.state !== shown.state;

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    heading.current?.focus();
    return () => {
      element?.close();
      trustStore.returnFocus();
    };
  }, []);

  const close = (): void => trustStore.closeReview();

  const grant = async (): Promise<void> => {
    setOutcome({ kind: 'asking' });
    try {
      const result = await call('trust:grant', { digest: shown.digest });
      trustStore.apply(result.trust);
      setShown(result.trust);
      setOutcome({ kind: result.granted ? 'granted' : 'declined' });
      if (result.granted) closeButton.current?.focus();
    } catch (failure) {
      if (failure instanceof StudioCallError && failure.code === 'trust-changed') {
        const fresh = await trustStore.refresh();
        if (fresh) setShown(fresh);
        setOutcome({ kind: 'changed' });
        heading.current?.focus();
      } else setOutcome({ kind: 'failed', message: describeError(failure) });
    }
  };

  const showNewVersion = (): void => {
    setShown(live);
    setOutcome(null);
    heading.current?.focus();
  };

  const groups = groupManifest(shown.items);
  const warnings = warningCount(shown);
  const changes = shown.changes ?? [];
  return (
    <dialog
      ref={dialog}
      className="modal trust-review"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
      // The dialog owns the keys while it shows: no window shortcut (run, save…) acts behind it.
      onKeyDown={(event) => event.stopPropagation()}
    >
      <h2 id={titleId} ref={heading} tabIndex={-1}>
        Review this workspace
      </h2>
      <p className="trust-review-path">
        <code>{shown.path}</code>
      </p>
      <div className="trust-review-body" tabIndex={0} role="region" aria-label="What this workspace would run">
        {changes.length > 0 ? (
          <section className="trust-group trust-changes" aria-labelledby={`${titleId}-changes`}>
            <h3 id={`${titleId}-changes`}>What changed since you trusted it</h3>
            <ul>
              {changes.map((change, index) => (
                <li key={index}>{change.text}</li>
              ))}
            </ul>
          </section>
        ) : null}
        <p>
          {stateSentence(shown)}{' '}
          {shown.state === 'restricted'
            ? 'Trusting it lets it run the following with your own rights: PromptForge does not sandbox it. The trust is kept for this folder and this exact list; any change makes it restricted again.'
            : null}
        </p>
        {warnings > 0 ? (
          <p className="trust-warning-summary">
            <span className="trust-warning-mark" aria-hidden="true">
              ⚠
            </span>
            <strong>{countOf(warnings, 'warning')}</strong> below: look at {warnings === 1 ? 'it' : 'them'} twice.
          </p>
        ) : null}
        {groups.map((group) => (
          <section key={group.kind} className="trust-group" aria-labelledby={`${titleId}-${group.kind}`}>
            <h3 id={`${titleId}-${group.kind}`}>
              {group.title} <span className="muted small">({group.items.length})</span>
            </h3>
            <ul className="trust-items">
              {group.items.map((item) => (
                <ItemEntry key={item.id} item={item} />
              ))}
            </ul>
          </section>
        ))}
        {groups.length === 0 ? <p className="muted">It runs no commands or servers and sends no secrets.</p> : null}
        {shown.files.length > 0 ? (
          <section className="trust-group" aria-labelledby={`${titleId}-files`}>
            <h3 id={`${titleId}-files`}>Files it runs, covered by their contents</h3>
            <p className="muted small">A change to any of these files makes the workspace restricted again.</p>
            <ul className="trust-files">
              {shown.files.map((file) => (
                <li key={file.path}>
                  <code>{file.path}</code>{' '}
                  <span className="muted small">
                    {file.sha256 === null
                      ? '(could not be read: its contents are not covered)'
                      : `sha256 ${shortHash(file.sha256)}…`}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </div>
      {changedSinceShown && !asking ? (
        <p className="trust-notice" role="alert">
          This workspace changed while you were reading it.{' '}
          <button type="button" className="button button-small" onClick={showNewVersion}>
            Show what it is now
          </button>
        </p>
      ) : null}
      <div className="trust-outcome" role="status">
        {asking ? (
          <span>
            <span className="spinner" aria-hidden="true" /> Waiting for your answer in the confirmation dialog…
          </span>
        ) : null}
        {outcome?.kind === 'declined' ? 'You said no: nothing changed. The workspace stays in Restricted mode.' : null}
        {outcome?.kind === 'granted'
          ? 'Trusted. Its command tools can run, and its MCP servers start when a run needs them or when you start them.'
          : null}
      </div>
      {outcome?.kind === 'changed' ? (
        <p className="trust-notice" role="alert">
          The workspace changed while you were reading it, so nothing was trusted. This is what it would run now: read
          it again, then decide.
        </p>
      ) : null}
      {outcome?.kind === 'failed' ? (
        <p className="error-text" role="alert">
          Not trusted: {outcome.message}
        </p>
      ) : null}
      <div className="button-row modal-actions">
        <button type="button" className="button" ref={closeButton} onClick={close}>
          Close
        </button>
        {shown.state === 'restricted' ? (
          <button
            type="button"
            className="button button-primary"
            // aria-disabled, not disabled: focus stays on the button while main's dialog asks.
            aria-disabled={asking}
            onClick={() => {
              if (!asking) void grant();
            }}
          >
            Trust this workspace…
          </button>
        ) : null}
      </div>
    </dialog>
  );
}
