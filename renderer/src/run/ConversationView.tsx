import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import {
  forkEditedKey,
  itemIndexForStep,
  type ConversationItem,
  type ConversationSnapshot,
} from './conversation-builder';
import { InertText } from '../shell/InertText';
import { displayText } from './argument-display';
import { McpQuestionRow } from '../mcp/McpQuestionRow';
import { escapeHidden } from './hidden-characters';
import type { PagingState } from './run-store';
import {
  DISPATCH_ID_HINT,
  EditedInFork,
  ForkFromHere,
  formatMs,
  MODEL_CALL_ID_HINT,
  type OnFork,
} from './conversation-parts';
import { DispatchCard } from './DispatchCard';
import type { Theme } from '../shell/theme';

/**
 * A step to show the person (where a test case diverged): the event's `seq`, what to say there, and
 * `request`, new for each time it is asked (so asking again scrolls back to it).
 */
export interface RunFocus {
  runId: string;
  seq: number;
  label: string;
  request: number;
}

function ItemView({
  runId,
  item,
  live,
  edited,
  taintCheckOf,
  theme,
  scroller,
  onFork,
}: {
  runId: string;
  item: ConversationItem;
  live: boolean;
  /** This row is the step its fork edited. */
  edited: boolean;
  taintCheckOf: (alias: string) => boolean;
  theme: Theme;
  scroller: () => HTMLElement | null;
  onFork?: OnFork | undefined;
}) {
  switch (item.kind) {
    case 'run-start':
      return (
        <div className="conversation-meta">
          Run of <code>{item.event.script.path}</code>
          {item.event.model ? (
            <>
              {' '}
              with <code>{item.event.model.alias}</code> ({item.event.model.provider} {item.event.model.modelId})
            </>
          ) : item.event.toolTrial ? (
            <> with no model (tool trial)</>
          ) : null}
          {item.event.replayOf ? <span className="tag">replay</span> : null}
          {/* The message the script received as `...` (a tool trial's input is its call, shown below). */}
          {item.event.input !== undefined && !item.event.toolTrial ? (
            <div className="conversation-input">
              <span className="role-label">Message</span>
              <InertText
                text={typeof item.event.input === 'string' ? item.event.input : JSON.stringify(item.event.input)}
              />
            </div>
          ) : null}
        </div>
      );
    case 'request':
      return (
        <div className="round-divider" role="separator" aria-label={`Round ${item.round}`}>
          <span>
            Round {item.round} · request to <code>{item.model}</code>
            {item.tools.length > 0 ? ` · tools: ${item.tools.join(', ')}` : ''}
          </span>
        </div>
      );
    case 'message':
      return (
        <article className={`conversation-card message role-${item.role.split(' ')[0]}`}>
          <header className="card-header">
            <span className="role-label">{item.role}</span>
            {item.toolCallIds.length > 0 ? (
              <span className="muted small">calls {item.toolCallIds.join(', ')}</span>
            ) : null}
          </header>
          {item.text !== '' ? <InertText text={item.text} /> : <p className="muted small">(no text)</p>}
        </article>
      );
    case 'assistant':
      return (
        <article className="conversation-card message role-assistant" aria-label={`Assistant, round ${item.round}`}>
          <header className="card-header">
            <span className="role-label">assistant · round {item.round}</span>
            {edited ? <EditedInFork /> : null}
            <span className="muted small">
              {item.streaming ? (
                <>
                  <span className="spinner" aria-hidden="true" /> streaming…
                </>
              ) : (
                `${item.finishReason ?? ''}${item.durationMs !== undefined ? ` · ${formatMs(item.durationMs)}` : ''}${
                  item.usage ? ` · ${item.usage.inputTokens} in / ${item.usage.outputTokens} out` : ''
                }`
              )}
            </span>
            {onFork && item.step !== undefined && !item.streaming ? (
              <ForkFromHere
                step={item.step}
                label={`model round ${item.round}`}
                onFork={() =>
                  onFork({ step: item.step!, kind: 'model', label: `model round ${item.round}`, text: item.text })
                }
              />
            ) : null}
          </header>
          {item.text !== '' ? (
            <InertText className="inert-text assistant-text" text={item.text} />
          ) : (
            <p className="muted small">(no text)</p>
          )}
        </article>
      );
    case 'requested-call':
      return (
        <div className="requested-call">
          <span className="muted small">model requests</span> <code>{item.call.name}</code>{' '}
          <span className="muted small call-id" title={MODEL_CALL_ID_HINT}>
            the model&apos;s id {item.call.id}
          </span>{' '}
          <InertText className="inert-text inline-code" text={displayText(item.call.rawArguments, { raw: true })} />
          {item.call.error ? <span className="error-text small">{item.call.error}</span> : null}
          {item.dispatchedAs ? (
            <span className="muted small call-id" title={DISPATCH_ID_HINT}>
              {' '}
              → dispatched as {item.dispatchedAs}, the host&apos;s id
            </span>
          ) : null}
        </div>
      );
    case 'mcp-question':
      return <McpQuestionRow event={item.event} />;
    case 'mcp-read':
      return <McpReadCard item={item} />;
    case 'dispatch':
      return (
        <DispatchCard
          runId={runId}
          item={item}
          live={live}
          edited={edited}
          taintCheck={taintCheckOf(item.alias)}
          theme={theme}
          scroller={scroller}
          onFork={onFork}
        />
      );
    case 'log':
      return (
        <div className="log-line">
          <span className="muted small">log</span> <InertText className="inert-text inline-code" text={item.text} />
        </div>
      );
    case 'run-end': {
      const end = item.event;
      return (
        <div className={`run-end status-${end.status}`} role="status">
          <strong>Run {end.status}</strong> · {formatMs(end.durationMs)} · CPU {formatMs(end.cpuMs)} ·{' '}
          {end.usage.inputTokens} in / {end.usage.outputTokens} out
          {end.error ? (
            <div className="small">
              {end.error.kind}: {end.error.message}
            </div>
          ) : null}
        </div>
      );
    }
  }
}

/** Items from the end at which the next page of a run read from its transcript is asked for. */
const LOAD_AHEAD_ITEMS = 30;
/** The items of no run: one array, so effects that depend on the items do not rerun for nothing. */
const NO_ITEMS: readonly ConversationItem[] = [];

/** Where reading a run's transcript stands: a note, and a button when the next page waits for the person. */
function PagingFooter({ paging, onLoadMore }: { paging: PagingState; onLoadMore: (explicit: boolean) => void }) {
  if (paging.problem !== undefined)
    return (
      <p className="paging-note error-text" role="alert">
        {paging.problem}
      </p>
    );
  if (paging.complete) return null;
  const shown = `${paging.next.toLocaleString('en')} of ${paging.total.toLocaleString('en')} events read`;
  return (
    <p className="paging-note muted small" role="status">
      {paging.loading ? `Reading the transcript… ${shown}` : shown}
      {paging.askFirst && !paging.loading ? (
        <button type="button" className="button button-small" onClick={() => onLoadMore(true)}>
          Read more events
        </button>
      ) : null}
    </p>
  );
}

/**
 * The live conversation of one run, virtualised so thousands of items scroll smoothly. A run opened
 * from its transcript is read on as the view nears its last item (`onLoadMore`).
 */
export function ConversationView({
  snapshot,
  paging,
  onLoadMore,
  taintCheckOf,
  theme,
  onFork,
  focus,
  emptyHint = 'No run selected. Run the agent (Ctrl+Enter) or open a run from the history.',
}: {
  snapshot: ConversationSnapshot | undefined;
  paging?: PagingState | undefined;
  onLoadMore?: ((explicit: boolean) => void) | undefined;
  taintCheckOf: (alias: string) => boolean;
  /** For the approval cards of calls waiting here. */
  theme: Theme;
  /** Set when the run has a transcript to fork from: shows "Fork from here" on steps. */
  onFork?: OnFork | undefined;
  /** A step to scroll to, mark and move focus to (a failing test's diverging step), when the run holds it. */
  focus?: RunFocus | undefined;
  /** What to say when no run is shown. */
  emptyHint?: string | undefined;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const items = snapshot?.items ?? NO_ITEMS;
  const live = snapshot !== undefined && snapshot.ended === undefined;
  const forkOf = snapshot?.started?.forkOf;
  const editedKey = useMemo(() => forkEditedKey(items, forkOf), [items, forkOf]);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 72,
    overscan: 8,
    getItemKey: (index) => items[index]?.key ?? index,
  });
  const scrollerElement = useCallback(() => scroller.current, []);
  const stickToBottom = useRef(true);
  const userScrolling = useRef(false);

  useEffect(() => {
    if (stickToBottom.current && items.length > 0) virtualizer.scrollToIndex(items.length - 1, { align: 'end' });
  }, [items, virtualizer]);

  // The focused step: once its event is read, the view stops following the end, centres it, and
  // moves focus to its note (once per request; a step not read yet is reached by reading on).
  const focusIndex = focus === undefined ? -1 : itemIndexForStep(items, focus.seq);
  const focusedRequest = useRef<number | null>(null);
  useEffect(() => {
    if (focus === undefined || focusIndex < 0 || focusedRequest.current === focus.request) return;
    focusedRequest.current = focus.request;
    stickToBottom.current = false;
    virtualizer.scrollToIndex(focusIndex, { align: 'center' });
    // After the row is drawn where it now scrolls to.
    requestAnimationFrame(() =>
      requestAnimationFrame(() => scroller.current?.querySelector<HTMLElement>('.diverged-note')?.focus()),
    );
  }, [focus, focusIndex, virtualizer]);

  const lastShown = virtualizer.getVirtualItems().at(-1)?.index ?? -1;
  const wantsMore =
    paging !== undefined && !paging.complete && !paging.loading && !paging.askFirst && paging.problem === undefined;
  useEffect(() => {
    if (wantsMore && lastShown >= items.length - LOAD_AHEAD_ITEMS) onLoadMore?.(false);
  }, [wantsMore, lastShown, items.length, onLoadMore]);

  if (snapshot === undefined) {
    return (
      <div className="panel-empty">
        <p className="muted">{emptyHint}</p>
      </div>
    );
  }
  return (
    <div
      ref={scroller}
      className="conversation-scroller"
      role="log"
      aria-label="Conversation"
      aria-live="off"
      tabIndex={0}
      // Following the end stops only when the person scrolls away from it (wheel, keys, a drag of
      // the scrollbar or a touch): the list's own growth and re-measuring move scrollTop too.
      onWheel={(event) => {
        if (event.deltaY < 0) stickToBottom.current = false;
      }}
      onKeyDown={(event) => {
        if (['ArrowUp', 'PageUp', 'Home'].includes(event.key)) stickToBottom.current = false;
      }}
      onPointerDown={() => (userScrolling.current = true)}
      onPointerUp={() => (userScrolling.current = false)}
      onTouchStart={() => (userScrolling.current = true)}
      onTouchEnd={() => (userScrolling.current = false)}
      onScroll={(event) => {
        const element = event.currentTarget;
        const atEnd = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
        if (atEnd) stickToBottom.current = true;
        else if (userScrolling.current) stickToBottom.current = false;
      }}
    >
      <div
        className="virtual-space"

        ref={(node) => sizeSpacer(node, virtualizer.getTotalSize())}
      >
        {virtualizer.getVirtualItems().map((row) => (
          <div
            key={row.key}
            data-index={row.index}
            ref={(node) => {
              virtualizer.measureElement(node);
              placeRow(node, row.start);
            }}
            className={row.index === focusIndex ? 'virtual-row diverged-row' : 'virtual-row'}
          >
            {row.index === focusIndex && focus ? (
              <p className="diverged-note" tabIndex={-1}>
                <span aria-hidden="true">▼ </span>
                The test diverged here: {focus.label}
              </p>
            ) : null}
            <ItemView
              runId={snapshot.runId}
              item={items[row.index]!}
              live={live}
              edited={editedKey !== undefined && items[row.index]!.key === editedKey}
              taintCheckOf={taintCheckOf}
              theme={theme}
              scroller={scrollerElement}
              onFork={onFork}
            />
          </div>
        ))}
      </div>
      {paging && onLoadMore ? <PagingFooter paging={paging} onLoadMore={onLoadMore} /> : null}
    </div>
  );
}

// The CSP blocks style attributes (style-src 'self'), but CSSOM writes are not attributes the
// policy governs; sizes and offsets of virtual rows are set through element.style directly.
function sizeSpacer(node: HTMLDivElement | null, height: number): void {
  if (node) node.style.height = `${height}px`;
}

function placeRow(node: HTMLDivElement | null, top: number): void {
  if (node) node.style.transform = `translateY(${top}px)`;
}

/**
 * A script's read of an MCP resource or prompt: what it asked of which server, then the server's
 * text as it entered the run (inert, with its trust), or why the read failed.
 */
function McpReadCard({ item }: { item: Extract<ConversationItem, { kind: 'mcp-read' }> }) {
  const { read, output, error } = item;
  const what = read.kind === 'resource' ? 'resource' : 'prompt';
  const text =
    output === undefined
      ? ''
      : typeof output.output === 'string'
        ? output.output
        : JSON.stringify(output.output, null, 2);
  return (
    <article className="conversation-card dispatch-card mcp-read-card" aria-label={`MCP ${what} ${read.target}`}>
      <header className="card-header">
        <span className="role-label">
          MCP {what} · {read.server}
        </span>
        <code className="mcp-read-target">{escapeHidden(read.target)}</code>
      </header>
      {read.arguments && Object.keys(read.arguments).length > 0 ? (
        <InertText className="inert-text code-block" text={JSON.stringify(read.arguments, null, 2)} />
      ) : null}
      {output ? (
        <div className="tool-output">
          <div className="output-header">
            <span className={`trust-badge trust-${output.trust}`}>{output.trust}</span>
            <span className="muted small">the server&apos;s text · {formatMs(output.durationMs)}</span>
          </div>
          <InertText className="inert-text code-block" text={text} />
        </div>
      ) : error ? (
        <p className="error-text small">{error.message}</p>
      ) : (
        <p className="muted small">reading…</p>
      )}
    </article>
  );
}
