import type { RefObject } from 'react';

/**
 * What the last action did (a status) and what went wrong (an alert), each shown only when set.
 * With `messageRef`, the status can take focus (a revoke that removed the focused row moves focus
 * there).
 */
export function ResultMessages({
  message,
  error,
  messageRef,
}: {
  message: string | null;
  error: string | null;
  messageRef?: RefObject<HTMLParagraphElement | null>;
}) {
  return (
    <>
      {message ? (
        <p className="ok-text" role="status" tabIndex={messageRef ? -1 : undefined} ref={messageRef}>
          {message}
        </p>
      ) : null}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}
