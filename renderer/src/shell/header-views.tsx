import type { ReactNode } from 'react';
import { CredentialsPanel } from '../settings/CredentialsPanel';
import { TestsView } from '../tests/TestsView';
import { TrustView } from '../trust/TrustView';
import { RulesView } from '../rules/RulesView';
import { RulesHeaderMark } from '../rules/RulesHeaderMark';
import type { ActionHandlers, ActionId } from './actions';

/** What a header view may ask of the window: show a run's transcript, focused at a step. */
export interface HeaderViewContext {
  /** The open workspace's folder. */
  workspaceRoot: string;
  /** Opens run `runId` in the conversation view, scrolled to the step `focus` names (a test's diverging step). */
  openRunAt: (runId: string, focus?: { seq: number; label: string }) => void;
  /** The agent open in the editor, if any (a new test file starts with a case for it). */
  activeAgent: string | null;
  /** Shows a workspace file in the file viewer, focus in its text. */
  openFile: (path: string) => void;
}

/**
 * The views opened from the header that take the workspace area (Tests, Credentials, Trust): each
 * has a header button, a command-palette action, its content, and says whether the run panel stays
 * beside it (Tests opens a case's run there) or is hidden (the settings). Adding one is one row
 * here (and its action in actions.ts); App.tsx loops over this list.
 */
interface HeaderViewSpec {
  kind: string;
  /** The header button's text (and the view's name). */
  label: string;
  /** Its command-palette action. */
  action: ActionId;
  /** `beside`: the run panel shows next to it, narrow; `hidden`: the view takes the run panel's room too. */
  runPanel: 'beside' | 'hidden';
  render: (context: HeaderViewContext) => ReactNode;
  /** Something the header button shows after its label (a mark that the view needs attention). */
  Mark?: () => ReactNode;
}

const headerViews = [
  {
    kind: 'tests',
    label: 'Tests',
    action: 'tests',
    runPanel: 'beside',
    render: (context) => (
      <TestsView
        workspaceRoot={context.workspaceRoot}
        onOpenRun={context.openRunAt}
        activeAgent={context.activeAgent}
        onOpenFile={context.openFile}
      />
    ),
  },
  {
    kind: 'credentials',
    label: 'Credentials',
    action: 'credentials',
    runPanel: 'hidden',
    render: () => <CredentialsPanel />,
  },
  { kind: 'trust', label: 'Trust', action: 'trust', runPanel: 'hidden', render: () => <TrustView /> },
  {
    kind: 'rules',
    label: 'Rules',
    action: 'rules',
    runPanel: 'hidden',
    render: () => <RulesView />,
    Mark: RulesHeaderMark,
  },
] as const satisfies readonly HeaderViewSpec[];

/** The kind of a header view (`tests`, `credentials`, `trust`, `rules`). */
export type HeaderViewKind = (typeof headerViews)[number]['kind'];

function specOf(view: { kind: string }): HeaderViewSpec | undefined {
  return headerViews.find((spec) => spec.kind === view.kind);
}

/** Whether `view` hides the run panel (Credentials, Trust: the settings). */
export function hidesRunPanel(view: { kind: string }): boolean {
  return specOf(view)?.runPanel === 'hidden';
}

/** Whether the run panel beside `view` is the narrow one (the view needs the room). */
export function narrowsRunPanel(view: { kind: string }): boolean {
  return view.kind === 'history' || view.kind === 'catalog' || specOf(view)?.runPanel === 'beside';
}

/** The header buttons of the header views; the shown one is pressed. */
export function HeaderViewButtons({
  current,
  onSelect,
}: {
  current: { kind: string };
  onSelect: (view: { kind: HeaderViewKind }) => void;
}) {
  return headerViews.map((spec: HeaderViewSpec) => (
    <button
      key={spec.kind}
      type="button"
      className="button button-quiet"
      aria-pressed={current.kind === spec.kind}
      onClick={() => onSelect({ kind: spec.kind as HeaderViewKind })}
    >
      {spec.label}
      {spec.Mark ? <spec.Mark /> : null}
    </button>
  ));
}

/** The content of `view` when it is a header view, else nothing. */
export function HeaderViewContent({ view, context }: { view: { kind: string }; context: HeaderViewContext }) {
  return specOf(view)?.render(context) ?? null;
}

/** The command-palette actions that open the header views. */
export function headerViewActions(
  select: (view: { kind: HeaderViewKind }) => void,
  unavailable: string | null,
): ActionHandlers {
  return Object.fromEntries(
    headerViews.map((spec) => [spec.action, { run: () => select({ kind: spec.kind }), unavailable }]),
  );
}
