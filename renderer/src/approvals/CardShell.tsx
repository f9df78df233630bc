/**
 * The article every decision card is drawn in (a tool call's, an MCP server's question): its
 * arming bar while it wakes up, the keys it takes in words, and whether focus came into it by the
 * person's own click or Tab (`deliberate`, which its single-key decisions need).
 */
import { useRef, type FocusEvent, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { focusWasDeliberate } from './deliberate-focus';

/** Where a card keeps whether focus came in by the person's act, and the handlers that keep it. */
export interface DeliberateFocus {
  /** Focus came in by the person's click or Tab/arrow, and has not left the card since. */
  deliberate: RefObject<boolean>;
  onFocus: (event: FocusEvent<HTMLElement>) => void;
  onBlur: (event: FocusEvent<HTMLElement>) => void;
}

/** Tracks whether focus came into a card deliberately (see {@link CardShell}'s `keys`). */
export function useDeliberateFocus(): DeliberateFocus {
  const deliberate = useRef(false);
  return {
    deliberate,
    onFocus: (event) => {
      deliberate.current = deliberate.current || focusWasDeliberate(event.currentTarget);
    },
    onBlur: (event) => {
      if (!(event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget)))
        deliberate.current = false;
    },
  };
}

export function CardShell({
  cardRef,
  className,
  titleId,
  runId,
  callId,
  armed,
  shown,
  arming,
  armingTitle,
  keys,
  children,
}: {
  cardRef: RefObject<HTMLElement | null>;
  className: string;
  titleId: string;
  runId: string;
  callId: string;
  armed: boolean;
  shown: boolean;
  /** Starts the arming bar again each time the card arms again. */
  arming: string;
  armingTitle: string;
  /** A card that takes keys: what they are once armed, the handler, and its deliberate focus. */
  keys?: {
    hint: string;
    onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
    focus: DeliberateFocus;
  };
  children: ReactNode;
}) {
  return (
    <article
      ref={cardRef}
      className={`${className}${armed ? '' : ' arming'}`}
      aria-labelledby={`${titleId} ${titleId}-origin`}
      aria-describedby={keys ? `${titleId}-keys` : undefined}
      data-run-id={runId}
      data-call-id={callId}
      data-armed={armed ? 'true' : 'false'}
      data-shown={shown ? 'true' : 'false'}
      tabIndex={0}
      onKeyDown={keys?.onKeyDown}
      onFocus={keys?.focus.onFocus}
      onBlur={keys?.focus.onBlur}
    >
      {/* The bar fills while the card waits; it starts again each time the card arms again. */}
      {armed ? null : <div className="arm-bar" aria-hidden="true" title={armingTitle} key={arming} />}
      {keys ? (
        <p id={`${titleId}-keys`} className="visually-hidden">
          {armed ? keys.hint : 'New or moved card: keys and buttons wake up a moment after it is shown.'}
        </p>
      ) : null}
      {children}
    </article>
  );
}
