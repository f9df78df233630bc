/**
 * The one list of the studio's actions and shortcuts. It feeds the window's key handler
 * (use-shortcuts.ts), the command palette (CommandPalette.tsx) and the shortcuts dialog (`?`),
 * so each shortcut is written, and listed, exactly once.
 *
 * - `window` actions run from anywhere: by their chord (if they have one) and from the palette.
 * - `editor` and `approval card` entries are keys that a focused widget handles itself (an editor,
 *   a card you moved to); they are listed in the shortcuts dialog but not run from the window.
 *
 * No window action is a single key that could be typed by accident: every chord has Ctrl/⌘, and
 * `?` (the shortcuts list) is ignored while typing in a text field or an editor.
 *
 * @module
 */

/** The parts of a key event the registry looks at (a DOM KeyboardEvent has them all). */
export interface KeyChord {
  key: string;
  code: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** How the stop shortcut is written in hints, tooltips and the shortcuts list. */
export const stopShortcutLabel = 'Ctrl/⌘+Shift+.';

/**
 * The stop shortcut: Ctrl+Shift+. (⌘+Shift+. on macOS). No text is ever typed with it and no
 * editor binds it, so it works from anywhere, while a stray Esc (closing a list, leaving the
 * editor) never stops a run. `code` keeps it on the same key whatever the layout prints there.
 */
export function isStopShortcut(event: KeyChord): boolean {
  return (
    (event.ctrlKey || event.metaKey) &&
    event.shiftKey &&
    !event.altKey &&
    (event.code === 'Period' || event.key === '.' || event.key === '>')
  );
}

/** The actions App can run. */
export type ActionId =
  | 'run'
  | 'replay'
  | 'stop'
  | 'save'
  | 'palette'
  | 'quick-open'
  | 'shortcuts'
  | 'toggle-explorer'
  | 'toggle-run-panel'
  | 'show-conversation'
  | 'show-approvals'
  | 'show-log'
  | 'show-usage'
  | 'history'
  | 'edit-tools'
  | 'edit-models'
  | 'tests'
  | 'credentials'
  | 'trust'
  | 'rules'
  | 'new-agent'
  | 'open-example'
  | 'open-folder'
  | 'toggle-theme'
  | 'about';

/** Where a shortcut works. */
export type ShortcutScope = 'window' | 'editor' | 'approval card';

/** One entry of the registry. */
export interface ActionSpec {
  /** For `window` actions, the handler's key in {@link ActionHandlers}. */
  id: ActionId | null;
  /** What it does, as the palette and the shortcuts dialog say it. */
  title: string;
  /** How the keys are written (`Ctrl/⌘ + Enter`); absent when the action has no shortcut. */
  keys?: string;
  scope: ShortcutScope;
  /** Whether a key event is this action's chord (window actions with keys only). */
  matches?: (event: KeyChord) => boolean;
  /** Whether the chord also works while typing in a text field or an editor (chords with Ctrl/⌘ do). */
  whileTyping?: boolean;
  /** Words the palette also matches (`dark`, `light` for the theme switch). */
  keywords?: string;
}

const mod = (event: KeyChord): boolean => (event.ctrlKey || event.metaKey) && !event.altKey;
const letter = (event: KeyChord, code: string): boolean =>
  event.code === `Key${code}` || event.key.toLowerCase() === code.toLowerCase();

/** Every action and shortcut of the studio, in the order the palette and the dialog show them. */
export const actionSpecs: readonly ActionSpec[] = [
  {
    id: 'run',
    title: 'Run the agent (the editor’s text, saved or not)',
    keys: 'Ctrl/⌘ + Enter',
    scope: 'window',
    matches: (event) => mod(event) && !event.shiftKey && event.key === 'Enter',
    whileTyping: true,
  },
  { id: 'replay', title: 'Run offline: replay the agent’s recording', scope: 'window', keywords: 'recording' },
  {
    id: 'stop',
    title: 'Stop the running agent, from anywhere (Esc never stops a run)',
    keys: stopShortcutLabel.replace(/\+/g, ' + '),
    scope: 'window',
    matches: isStopShortcut,
    whileTyping: true,
  },
  {
    id: 'save',
    title: 'Save the agent or catalog file',
    keys: 'Ctrl/⌘ + S',
    scope: 'window',
    matches: (event) => mod(event) && !event.shiftKey && letter(event, 'S'),
    whileTyping: true,
  },
  {
    id: 'palette',
    title: 'Show the command palette',
    keys: 'Ctrl/⌘ + Shift + P',
    scope: 'window',
    matches: (event) => mod(event) && event.shiftKey && letter(event, 'P'),
    whileTyping: true,
    keywords: 'commands',
  },
  {
    id: 'quick-open',
    title: 'Quick open: an agent, a run, a tool, a model or a file by name',
    keys: 'Ctrl/⌘ + P',
    scope: 'window',
    // A chord: it works in an editor too (no editor binds it), and the browser's print never opens.
    matches: (event) => mod(event) && !event.shiftKey && letter(event, 'P'),
    whileTyping: true,
    keywords: 'go to file find search open',
  },
  {
    id: 'shortcuts',
    title: 'Show the keyboard shortcuts',
    keys: '?',
    scope: 'window',
    // Outside text fields only: in an editor, ? is text.
    matches: (event) => event.key === '?' && !event.ctrlKey && !event.metaKey && !event.altKey,
    whileTyping: false,
    keywords: 'keys help',
  },
  {
    id: 'toggle-explorer',
    title: 'Show or hide the explorer',
    keys: 'Ctrl/⌘ + Shift + E',
    scope: 'window',
    matches: (event) => mod(event) && event.shiftKey && letter(event, 'E'),
    whileTyping: true,
    keywords: 'panel sidebar collapse',
  },
  {
    id: 'toggle-run-panel',
    title: 'Show or hide the run panel',
    keys: 'Ctrl/⌘ + Shift + Y',
    scope: 'window',
    matches: (event) => mod(event) && event.shiftKey && letter(event, 'Y'),
    whileTyping: true,
    keywords: 'panel collapse',
  },
  { id: 'show-conversation', title: 'Show the conversation', scope: 'window', keywords: 'run tab' },
  { id: 'show-approvals', title: 'Show the calls waiting for approval', scope: 'window', keywords: 'run tab' },
  { id: 'show-log', title: 'Show the run log', scope: 'window', keywords: 'run tab' },
  { id: 'show-usage', title: 'Show usage and timing', scope: 'window', keywords: 'run tab tokens cost' },
  { id: 'history', title: 'Open the run history', scope: 'window', keywords: 'runs compare' },
  { id: 'edit-tools', title: 'Edit tools.yaml', scope: 'window', keywords: 'catalog' },
  { id: 'edit-models', title: 'Edit models.yaml', scope: 'window', keywords: 'catalog' },
  {
    id: 'tests',
    title: 'Open the tests (run the workspace’s agent tests)',
    scope: 'window',
    keywords: 'test cases suite yaml promptforge test',
  },
  { id: 'credentials', title: 'Open the credentials (provider keys)', scope: 'window', keywords: 'settings api key' },
  {
    id: 'trust',
    title: 'Open Trust (trusted workspaces and approved key origins)',
    scope: 'window',
    keywords: 'workspace restricted mode revoke',
  },
  {
    id: 'rules',
    title: 'Open the approval rules (allow, ask or deny calls for good)',
    scope: 'window',
    keywords: 'always allow deny policy approval-rules.yaml',
  },
  { id: 'new-agent', title: 'New agent…', scope: 'window', keywords: 'file create' },
  { id: 'open-example', title: 'Open the example workspace', scope: 'window', keywords: 'folder' },
  { id: 'open-folder', title: 'Open a folder…', scope: 'window', keywords: 'workspace' },
  { id: 'toggle-theme', title: 'Switch between the dark and light theme', scope: 'window', keywords: 'dark light' },
  { id: 'about', title: 'About PromptForge Studio', scope: 'window', keywords: 'version' },
  { id: null, title: 'Indent / outdent', keys: 'Tab / Shift + Tab', scope: 'editor' },
  { id: null, title: 'Leave the editor (in an editor, Tab indents)', keys: 'Esc, then Tab', scope: 'editor' },
  { id: null, title: 'Approve the call (once you clicked or tabbed into its card)', keys: 'A', scope: 'approval card' },
  { id: null, title: 'Edit the arguments, then approve', keys: 'E', scope: 'approval card' },
  { id: null, title: 'Deny with a reason', keys: 'D', scope: 'approval card' },
  {
    id: null,
    title: 'Allow for this run: untainted calls of this tool stop asking',
    keys: 'Shift + L',
    scope: 'approval card',
  },
  { id: null, title: 'Move between approval cards', keys: '↑ / ↓, Home / End', scope: 'approval card' },
];

/** What App gives for an action: how to run it, and why it cannot run now (if it cannot). */
export interface ActionHandler {
  run: () => void;
  /** Set when the action is unavailable, e.g. "Open an agent first"; the palette shows it. */
  unavailable?: string | null;
}

/** Handlers by action id; an action without one is not offered. */
export type ActionHandlers = Partial<Record<ActionId, ActionHandler>>;

/** A window action with its handler, as the palette lists it. */
export interface BoundAction {
  spec: ActionSpec & { id: ActionId };
  handler: ActionHandler;
}

/** The window actions that have a handler, in registry order. */
export function boundActions(handlers: ActionHandlers): BoundAction[] {
  const bound: BoundAction[] = [];
  for (const spec of actionSpecs) {
    if (spec.scope !== 'window' || spec.id === null) continue;
    const handler = handlers[spec.id];
    if (handler) bound.push({ spec: spec as ActionSpec & { id: ActionId }, handler });
  }
  return bound;
}

/** The window action whose chord `event` is, if any. */
export function actionForKey(event: KeyChord, typing: boolean): (ActionSpec & { id: ActionId }) | undefined {
  return actionSpecs.find(
    (spec): spec is ActionSpec & { id: ActionId } =>
      spec.scope === 'window' &&
      spec.id !== null &&
      spec.matches !== undefined &&
      (!typing || spec.whileTyping === true) &&
      spec.matches(event),
  );
}

/**
 * Whether an action matches what was typed in the palette: every word of the query appears in
 * its title, keys or keywords (case-insensitive).
 */
export function actionMatchesQuery(spec: ActionSpec, query: string): boolean {
  const haystack = `${spec.title} ${spec.keys ?? ''} ${spec.keywords ?? ''}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '')
    .every((word) => haystack.includes(word));
}
