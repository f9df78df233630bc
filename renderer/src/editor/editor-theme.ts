/**
 * The editors' colours, one set per studio theme. Every token colour is at least 4.5:1 against
 * the editor's background and its active-line tint (WCAG AA for normal text), which CodeMirror's
 * own oneDark (comments and line numbers at 3.6:1) and default light style (#e40 at 3.6:1) are
 * not; the accessibility test (test/e2e/studio-a11y.test.ts) checks it with axe-core.
 *
 * Backgrounds and gutters come from the shell's CSS variables (shell/theme.css), so the editor
 * follows the theme like the rest of the window; token colours are fixed per theme.
 *
 * @module
 */
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';
import type { Theme } from '../shell/theme';

/** Token colours; each pair was measured against the backgrounds named in the module comment. */
interface TokenColours {
  keyword: string;
  string: string;
  comment: string;
  number: string;
  function: string;
  type: string;
  property: string;
  invalid: string;
  punctuation: string;
}

// Dark: on #181b22 (surface) every colour is ≥ 5.2:1, on the active line ≥ 4.9:1.
const darkTokens: TokenColours = {
  keyword: '#ff7b72',
  string: '#a5d6ff',
  comment: '#8b949e',
  number: '#79c0ff',
  function: '#d2a8ff',
  type: '#ffa657',
  property: '#79c0ff',
  invalid: '#ffa198',
  punctuation: '#c9d1d9',
};

// Light: on white every colour is ≥ 4.9:1, on the active line ≥ 4.6:1.
const lightTokens: TokenColours = {
  keyword: '#cf222e',
  string: '#0a3069',
  comment: '#57606a',
  number: '#0550ae',
  function: '#8250df',
  type: '#953800',
  property: '#0550ae',
  invalid: '#82071e',
  punctuation: '#24292f',
};

function highlightStyle(colours: TokenColours): HighlightStyle {
  return HighlightStyle.define([
    { tag: [t.keyword, t.operatorKeyword, t.controlKeyword, t.moduleKeyword], color: colours.keyword },
    { tag: [t.string, t.special(t.string), t.regexp, t.escape, t.character], color: colours.string },
    { tag: [t.comment, t.lineComment, t.blockComment, t.docComment, t.meta], color: colours.comment },
    { tag: [t.number, t.bool, t.null, t.atom, t.literal], color: colours.number },
    {
      tag: [t.function(t.variableName), t.function(t.propertyName), t.definition(t.function(t.variableName))],
      color: colours.function,
    },
    { tag: [t.standard(t.variableName), t.special(t.variableName)], color: colours.function },
    { tag: [t.typeName, t.className, t.namespace, t.labelName], color: colours.type },
    { tag: [t.propertyName, t.attributeName], color: colours.property },
    { tag: [t.operator, t.punctuation, t.bracket, t.separator], color: colours.punctuation },
    { tag: t.invalid, color: colours.invalid },
    { tag: t.strong, fontWeight: 'bold' },
    { tag: t.emphasis, fontStyle: 'italic' },
    { tag: t.link, textDecoration: 'underline' },
  ]);
}

/** The editor chrome: backgrounds, gutters, cursor and selection from the shell's variables. */
function chrome(dark: boolean): Extension {
  return EditorView.theme(
    {
      '&': { backgroundColor: 'var(--color-surface)', color: 'var(--color-text)' },
      '.cm-content': { caretColor: 'var(--color-text)' },
      '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--color-text)' },
      '.cm-gutters': {
        backgroundColor: 'var(--color-surface-raised)',
        // --color-text-muted is ≥ 5:1 on the raised surface in both themes.
        color: 'var(--color-text-muted)',
        borderRight: '1px solid var(--color-border)',
      },
      '.cm-activeLine': { backgroundColor: dark ? 'rgba(108, 182, 255, 0.05)' : 'rgba(11, 99, 206, 0.06)' },
      '.cm-activeLineGutter': { backgroundColor: 'var(--color-border)', color: 'var(--color-text)' },
      '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground': {
        backgroundColor: dark ? 'rgba(108, 182, 255, 0.28)' : 'rgba(11, 99, 206, 0.2)',
      },
      '.cm-matchingBracket, &.cm-focused .cm-matchingBracket': {
        backgroundColor: 'transparent',
        outline: '1px solid var(--color-focus)',
      },
      '.cm-tooltip': {
        backgroundColor: 'var(--color-surface-raised)',
        color: 'var(--color-text)',
        border: '1px solid var(--color-border)',
      },
      '.cm-tooltip-autocomplete > ul > li[aria-selected]': {
        backgroundColor: 'var(--color-focus)',
        color: dark ? '#0c0e12' : '#ffffff',
      },
      '.cm-completionDetail': { color: 'var(--color-text-muted)' },
      '.cm-tooltip-autocomplete > ul > li[aria-selected] .cm-completionDetail': { color: 'inherit' },
      '.cm-panels': { backgroundColor: 'var(--color-surface-raised)', color: 'var(--color-text)' },
    },
    { dark },
  );
}

const themes: Record<Theme, Extension> = {
  dark: [chrome(true), syntaxHighlighting(highlightStyle(darkTokens))],
  light: [chrome(false), syntaxHighlighting(highlightStyle(lightTokens))],
};

/** The editor's colours for a studio theme (put it in a Compartment to switch at run time). */
export function editorTheme(theme: Theme): Extension {
  return themes[theme];
}
