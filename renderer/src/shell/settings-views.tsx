import type { ReactNode } from 'react';
import { CredentialsPanel } from '../settings/CredentialsPanel';
import { TrustView } from '../trust/TrustView';
import type { ActionHandlers, ActionId } from './actions';

/**
 * The views that take the whole workspace area, with the run panel hidden (Credentials, Trust):
 * each has a header button, a command-palette action and its content. Adding one is one row here
 * (and its action in actions.ts); App.tsx loops over this list.
 */
interface SettingsViewSpec {
  kind: string;
  /** The header button's text (and the view's name). */
  label: string;
  /** Its command-palette action. */
  action: ActionId;
  render: () => ReactNode;
}

export const settingsViews = [
  { kind: 'credentials', label: 'Credentials', action: 'credentials', render: () => <CredentialsPanel /> },
  { kind: 'trust', label: 'Trust', action: 'trust', render: () => <TrustView /> },
] as const satisfies readonly SettingsViewSpec[];

/** The kind of a settings view (`credentials`, `trust`). */
export type SettingsViewKind = (typeof settingsViews)[number]['kind'];

/** Whether `view` is one of the settings views (the run panel is hidden while it shows). */
export function isSettingsView(view: { kind: string }): view is { kind: SettingsViewKind } {
  return settingsViews.some((spec) => spec.kind === view.kind);
}

/** The header buttons of the settings views; the shown one is pressed. */
export function SettingsViewButtons({
  current,
  onSelect,
}: {
  current: { kind: string };
  onSelect: (view: { kind: SettingsViewKind }) => void;
}) {
  return settingsViews.map((spec) => (
    <button
      key={spec.kind}
      type="button"
      className="button button-quiet"
      aria-pressed={current.kind === spec.kind}
      onClick={() => onSelect({ kind: spec.kind })}
    >
      {spec.label}
    </button>
  ));
}

/** The content of `view` when it is a settings view, else nothing. */
export function SettingsViewContent({ view }: { view: { kind: string } }) {
  return settingsViews.find((spec) => spec.kind === view.kind)?.render() ?? null;
}

/** The command-palette actions that open the settings views. */
export function settingsViewActions(
  select: (view: { kind: SettingsViewKind }) => void,
  unavailable: string | null,
): ActionHandlers {
  return Object.fromEntries(
    settingsViews.map((spec) => [spec.action, { run: () => select({ kind: spec.kind }), unavailable }]),
  );
}
