import { useEffect, useRef, useState } from 'react';
import type { WorkspaceTrustInfo } from '../../../common/trust-schemas.js';
import { useStudioEvent } from '../shell/studio-api';
import { ReviewTrustButton } from './ReviewTrustButton';
import { TrustReviewDialog } from './TrustReviewDialog';
import { trustStore, useWorkspaceTrust } from './trust-store';
import { changesNote, RESTRICTED_LINE, trustAnnouncement } from './trust-text';
import './trust.css';

/** A shield outline, drawn (a font may lack a shield glyph); the text says what it means. */
function ShieldMark() {
  return (
    <svg className="trust-banner-mark" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path
        d="M8 1.2 2.5 3.4v4.3c0 3.2 2.3 5.9 5.5 7 3.2-1.1 5.5-3.8 5.5-7V3.4L8 1.2Z"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.5"
        strokeLinejoin="round"
      />
      <path d="M8 4.8v4" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
      <circle cx="8" cy="11.2" r="0.9" fill="currentColor" />
    </svg>
  );
}

/**
 * The open workspace's trust under the header: keeps the trust store up to date (`trust:status`
 * when a workspace opens, then `trust-changed`), shows the Restricted-mode banner while the
 * workspace is restricted (nothing when it is trusted or has nothing to trust), and the review
 * dialog when it is open. A change of trust while the workspace is open is also said politely to
 * a screen reader.
 */
export function WorkspaceTrustBanner({ workspaceRoot }: { workspaceRoot: string | null }) {
  const { trust, error, reviewOpen, root } = useWorkspaceTrust();
  const [announcement, setAnnouncement] = useState('');
  const previous = useRef<WorkspaceTrustInfo | null>(null);

  useEffect(() => trustStore.follow(workspaceRoot), [workspaceRoot]);
  useStudioEvent('trust-changed', (next) => trustStore.apply(next));

  const current = root === workspaceRoot ? trust : null;
  useEffect(() => {
    if (current === null) return;
    const said = trustAnnouncement(previous.current, current);
    previous.current = current;
    // Said only when the state changes (a live region's text, not a render of the banner).
    if (said !== null) setAnnouncement(said);
  }, [current]);

  const note = current ? changesNote(current) : null;
  return (
    <>
      <span className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </span>
      {workspaceRoot !== null && error !== null && root === workspaceRoot ? (
        <div className="banner" role="alert">
          <span>Could not read whether this workspace is trusted: {error}</span>
        </div>
      ) : null}
      {current?.state === 'restricted' ? (
        <section className="trust-banner" aria-label="Restricted mode">
          <ShieldMark />
          <p className="trust-banner-text">
            <strong>Restricted mode:</strong> {RESTRICTED_LINE}
            {note ? (
              <>
                {' '}
                <span className="trust-banner-changes">{note}.</span>
              </>
            ) : null}
          </p>
          <ReviewTrustButton className="button button-small trust-banner-button">Review and trust…</ReviewTrustButton>
        </section>
      ) : null}
      {reviewOpen && current ? <TrustReviewDialog live={current} /> : null}
    </>
  );
}
