import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
  type CompletionSource,
} from '@codemirror/autocomplete';
import { defaultKeymap, history, historyField, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, indentOnInput } from '@codemirror/language';
import { lintGutter, linter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState, type Extension, type StateEffect } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  type KeyBinding,
} from '@codemirror/view';
import { forwardRef, useEffect, useId, useImperativeHandle, useRef } from 'react';
import { codePointEscape, HIDDEN_CHARACTER_SOURCE, hiddenCharacterLabel } from '../run/hidden-characters';
import { tabExit } from './editor-tab-exit';
import { editorTheme } from './editor-theme';
import type { Theme } from '../shell/theme';
import './editor.css';

/** What a parent may do with the editor. */
export interface CodeEditorHandle {
  /** Moves the cursor to a 1-based line and column, scrolls there and focuses the editor. */
  moveCursor(line: number, column: number): void;
  focus(): void;
  text(): string;
  /** Shows problems found elsewhere (e.g. by the core's catalog check) inline, at 1-based line/column. */
  showProblems(
    problems: ReadonlyArray<{ line: number; column: number; message: string; severity: 'error' | 'warning' }>,
  ): void;
}

/**
 * Keeps an editor's state while its document is not shown, so that showing it again restores the
 * undo history, the selection and the scroll position. Bound to one `documentKey`.
 */
export interface EditorStateKeeper {
  /** The state kept for this document, if any. */
  load(): { state: EditorState; scroll?: StateEffect<unknown> } | undefined;
  /** Called after every transaction, and with the scroll position when the editor goes away. */
  keep(kept: { state: EditorState; scroll?: StateEffect<unknown> }): void;
}

export interface CodeEditorProps {
  /** The document; a change of `documentKey` replaces the text (switching files). */
  initialText: string;
  documentKey: string;
  theme: Theme;
  ariaLabel: string;
  language?: Extension;
  lint?: (text: string) => Diagnostic[];
  completion?: CompletionSource;
  /** Adds a gutter for problems passed to {@link CodeEditorHandle.showProblems}. */
  problemGutter?: boolean;
  extraKeys?: readonly KeyBinding[];
  onChange?: (text: string) => void;
  /** Keeps the state of the document of `documentKey`; read when the editor is (re)built. */
  stateKeeper?: EditorStateKeeper;
  className?: string;
  /** Shown, selectable and searchable, never changed (the file viewer). */
  readOnly?: boolean;
}

const sharedTheme = EditorView.theme({
  '&': { height: '100%', fontSize: '13px' },
  '.cm-scroller': {
    overflow: 'auto',
    fontFamily: "ui-monospace, 'SFMono-Regular', 'Cascadia Code', 'DejaVu Sans Mono', monospace",
  },
  '&.cm-focused': { outline: 'none' },
  // Boxed like the card's escapes (run.css: .hidden-char); the text keeps the body colour, so its
  // contrast is that of the text in both themes.
  '& .cm-content .cm-specialChar': {
    color: 'var(--color-text)',
    backgroundColor: 'var(--color-untrusted-background)',
    outline: '1px dashed var(--color-untrusted)',
    outlineOffset: '-1px',
    borderRadius: '3px',
    padding: '0 1px',
    fontStyle: 'italic',
  },
});

/**
 * Draws every character a person cannot see, or that turns the text around, as the approval card
 * does (run/argument-display.ts): as an escape such as `\u202e`, named "U+202E right-to-left
 * override". CodeMirror's own set (controls, some bidi and zero-width characters) is widened to the
 * card's whole set, so a bidi control or a word joiner in a script, a catalog or edited arguments
 * is seen and does not reorder the text around it.
 */
const specialChars = highlightSpecialChars({
  addSpecialChars: new RegExp(HIDDEN_CHARACTER_SOURCE, 'u'),
  render(code) {
    const span = document.createElement('span');
    const label = hiddenCharacterLabel(code);
    span.textContent = codePointEscape(code);
    span.title = label;
    span.setAttribute('role', 'img');
    span.setAttribute('aria-label', label);
    span.className = 'cm-specialChar';
    return span;
  },
});

/** A CodeMirror 6 editor. Styles come through adopted stylesheets, which the CSP allows. */
export const CodeEditor = forwardRef<CodeEditorHandle, CodeEditorProps>(function CodeEditor(props, ref) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const themeSlot = useRef(new Compartment());
  const latest = useRef(props);
  const hintId = `${useId()}tab-hint`;
  useEffect(() => {
    latest.current = props;
  });

  useImperativeHandle(ref, () => ({
    moveCursor(line, column) {
      const editor = view.current;
      if (!editor) return;
      const target = editor.state.doc.line(Math.min(Math.max(1, line), editor.state.doc.lines));
      const position = Math.min(target.from + Math.max(0, column - 1), target.to);
      editor.dispatch({ selection: { anchor: position }, scrollIntoView: true });
      editor.focus();
    },
    focus() {
      view.current?.focus();
    },
    text() {
      return view.current?.state.doc.toString() ?? '';
    },
    showProblems(problems) {
      const editor = view.current;
      if (!editor) return;
      const doc = editor.state.doc;
      const diagnostics: Diagnostic[] = problems.map((problem) => {
        const line = doc.line(Math.min(Math.max(1, problem.line), doc.lines));
        const from = Math.min(line.from + Math.max(0, problem.column - 1), line.to);
        return { from, to: line.to, severity: problem.severity, message: problem.message };
      });
      editor.dispatch(setDiagnostics(editor.state, diagnostics));
    },
  }));

  useEffect(() => {
    if (!host.current) return;
    // CodeMirror's style-mod writes a <style> element when mounted in a document, which the CSP
    // (style-src 'self', no 'unsafe-inline') refuses; in a shadow root it uses adopted stylesheets,
    // which the policy does not govern. So every editor lives in its own open shadow root.
    const shadow = host.current.shadowRoot ?? host.current.attachShadow({ mode: 'open' });
    const mount = document.createElement('div');
    mount.style.height = '100%';
    shadow.replaceChildren(mount);
    const { language, lint, completion, extraKeys, ariaLabel, stateKeeper, initialText } = latest.current;
    const extensions: Extension[] = [
      lineNumbers(),
      highlightActiveLineGutter(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      closeBrackets(),
      highlightActiveLine(),
      specialChars,
      keymap.of([
        ...(extraKeys ?? []),
        ...closeBracketsKeymap,
        ...defaultKeymap,
        ...historyKeymap,
        ...completionKeymap,
        indentWithTab,
      ]),
      sharedTheme,
      themeSlot.current.of(editorTheme(latest.current.theme)),
      // tabindex: the editable content is in the tab order anyway; saying so lets checkers (axe's
      // scrollable-region-focusable) see that the scrolling area has keyboard access.
      EditorView.contentAttributes.of({ 'aria-label': ariaLabel, tabindex: '0' }),
      tabExit(hintId),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) latest.current.onChange?.(update.state.doc.toString());
        if (update.transactions.length > 0) stateKeeper?.keep({ state: update.state });
      }),
    ];
    if (language) extensions.push(language);
    if (latest.current.readOnly) extensions.push(EditorState.readOnly.of(true));
    if (lint)
      extensions.push(
        lintGutter(),
        linter((editor) => lint(editor.state.doc.toString()), { delay: 250 }),
      );
    if (latest.current.problemGutter && !lint) extensions.push(lintGutter());
    if (completion) extensions.push(autocompletion({ override: [completion], activateOnTyping: true }));
    // A kept state is restored only if it holds the text the editor is given (it always should).
    // Its document, selection and history go through their JSON form into a state built with this
    // editor's extensions (the kept state's extensions belong to the editor that made it).
    const kept = stateKeeper?.load();
    const restored = kept !== undefined && kept.state.doc.toString() === initialText;
    const editor = new EditorView({
      root: shadow,
      parent: mount,
      state: restored
        ? EditorState.fromJSON(kept.state.toJSON({ history: historyField }), { extensions }, { history: historyField })
        : EditorState.create({ doc: initialText, extensions }),
      ...(restored && kept.scroll ? { scrollTo: kept.scroll } : {}),
    });
    view.current = editor;
    return () => {
      stateKeeper?.keep({ state: editor.state, scroll: editor.scrollSnapshot() });
      editor.destroy();
      view.current = null;
    };
    // The editor is rebuilt only when another document is opened (hintId never changes).
  }, [props.documentKey, hintId]);

  useEffect(() => {
    view.current?.dispatch({ effects: themeSlot.current.reconfigure(editorTheme(props.theme)) });
  }, [props.theme]);

  return <div ref={host} className={props.className ?? 'code-editor'} />;
});
