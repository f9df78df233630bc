import type { ReactNode } from 'react';
import { trustStore } from './trust-store';

/** The button that opens the open workspace's trust review, returning focus to it on close. */
export function ReviewTrustButton({ className, children }: { className: string; children: ReactNode }) {
  return (
    <button
      type="button"
      className={className}
      aria-haspopup="dialog"
      onClick={(event) => trustStore.openReview(event.currentTarget)}
    >
      {children}
    </button>
  );
}
