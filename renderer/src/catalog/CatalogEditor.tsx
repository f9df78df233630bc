import { StreamLanguage } from '@codemirror/language';
import { yaml } from '@codemirror/legacy-modes/mode/yaml';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { CatalogFile, CatalogProblemInfo } from '../../../common/studio-schemas.js';
import { call, describeError, useStudioEvent } from '../shell/studio-api';
import { CatalogForm, hasCatalogForm } from './CatalogFormView';
import { CodeEditor, type CodeEditorHandle } from '../editor/CodeEditor';
import type { Theme } from '../shell/theme';

const yamlLanguage = StreamLanguage.define(yaml);

type SaveState = { kind: 'clean' } | { kind: 'saving' } | { kind: 'saved' } | { kind: 'refused'; count: number };

/** Raw editor for tools.yaml / models.yaml with live validation (`catalog:check`) and save (`catalog:write`). */
export function CatalogEditor({
  file,
  theme,
  onDirtyChange,
}: {
  file: CatalogFile;
  theme: Theme;
  onDirtyChange: (dirty: boolean) => void;
}) {
  // `revision` changes when the text is replaced from outside the editor (disk, form view).
  const [loaded, setLoaded] = useState<{ file: CatalogFile; text: string; revision: number } | null>(null);
  const [mode, setMode] = useState<'raw' | 'form'>('raw');
  const [pendingCursor, setPendingCursor] = useState<{ line: number; column: number } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [savedText, setSavedText] = useState('');
  const [problems, setProblems] = useState<CatalogProblemInfo[]>([]);
  // The text the shown problems belong to: the check is running while it differs from the text.
  const [checkedText, setCheckedText] = useState<string | null>(null);
  const checking = loaded !== null && checkedText !== text;
  const [saveState, setSaveState] = useState<SaveState>({ kind: 'clean' });
  const editor = useRef<CodeEditorHandle>(null);
  const checkSequence = useRef(0);

  useEffect(() => {
    // One editor per file (App keys it by file), so nothing from another file needs clearing here.
    let current = true;
    call('file:read', { path: file }).then(
      ({ text: fileText }) => {
        if (!current) return;
        setLoaded({ file, text: fileText, revision: 0 });
        setText(fileText);
        setSavedText(fileText);
      },
      (error: unknown) => {
        if (!current) return;
        // A workspace may not have the file yet: start empty, saving creates it.
        setLoadError(describeError(error));
        setLoaded({ file, text: '', revision: 0 });
        setText('');
        setSavedText('');
      },
    );
    return () => {
      current = false;
    };
  }, [file]);

  const dirty = loaded !== null && text !== savedText;

  // An external edit of the file shows up at once, unless the person has unsaved edits here.
  useStudioEvent('workspace-changed', () => {
    if (loaded === null || dirty) return;
    call('file:read', { path: file }).then(
      ({ text: fileText }) => {
        if (fileText === savedText) return;
        setLoaded((current) => (current ? { file, text: fileText, revision: current.revision + 1 } : current));
        setText(fileText);
        setSavedText(fileText);
      },
      () => undefined,
    );
  });

  const replaceText = (next: string): void => {
    setText(next);
    setLoaded((current) => (current ? { ...current, text: next, revision: current.revision + 1 } : current));
    setSaveState({ kind: 'clean' });
  };
  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);

  // Live validation, debounced; answers of older checks are dropped.
  useEffect(() => {
    if (loaded === null) return;
    const sequence = ++checkSequence.current;
    const timer = window.setTimeout(() => {
      call('catalog:check', { file, text }).then(
        (result) => {
          if (sequence !== checkSequence.current) return;
          setProblems(result.problems);
          setCheckedText(text);
        },
        (error: unknown) => {
          if (sequence !== checkSequence.current) return;
          setProblems([
            { severity: 'error', file, pointer: '', line: 1, column: 1, message: describeError(error), fix: '' },
          ]);
          setCheckedText(text);
        },
      );
    }, 300);
    return () => window.clearTimeout(timer);
  }, [file, text, loaded]);

  const save = async (): Promise<void> => {
    setSaveState({ kind: 'saving' });
    try {
      const result = await call('catalog:write', { file, text });
      setProblems(result.problems);
      if (result.saved) {
        setSavedText(text);
        setSaveState({ kind: 'saved' });
      } else {
        setSaveState({ kind: 'refused', count: result.problems.filter((p) => p.severity === 'error').length });
      }
    } catch (error) {
      setSaveState({ kind: 'refused', count: 0 });
      setLoadError(describeError(error));
    }
  };
  const latestSave = useRef(save);
  useEffect(() => {
    latestSave.current = save;
  });
  const extraKeys = useMemo(
    () => [
      {
        key: 'Mod-s',
        preventDefault: true,
        run: () => {
          void latestSave.current();
          return true;
        },
      },
    ],
    [],
  );

  useEffect(() => {
    editor.current?.showProblems(
      problems.map((problem) => ({
        ...problem,
        message: `${problem.message}${problem.fix ? ` Fix: ${problem.fix}` : ''}`,
      })),
    );
  }, [problems, loaded]);

  useEffect(() => {
    if (pendingCursor === null || mode !== 'raw' || !editor.current) return;
    editor.current.moveCursor(pendingCursor.line, pendingCursor.column);
    setPendingCursor(null);
  }, [pendingCursor, mode]);

  const errors = problems.filter((p) => p.severity === 'error').length;
  return (
    <section className="catalog-editor" aria-label={`Catalog editor ${file}`}>
      <div className="editor-toolbar">
        <h2 className="editor-title">
          {file}
          {dirty ? (
            <span className="dirty-dot" aria-label="unsaved changes" title="unsaved changes">
              ●
            </span>
          ) : null}
        </h2>
        <span className={`validation-status ${errors > 0 ? 'has-errors' : 'valid'}`} role="status">
          {checking
            ? 'Checking…'
            : errors > 0
              ? `${errors} error${errors === 1 ? '' : 's'}`
              : problems.length > 0
                ? `${problems.length} warning${problems.length === 1 ? '' : 's'}`
                : 'Valid'}
        </span>
        <div className="toolbar-spacer" />
        {hasCatalogForm(file) ? (
          <div className="segmented" role="group" aria-label="View">
            <button
              type="button"
              className="button button-small"
              aria-pressed={mode === 'raw'}
              onClick={() => setMode('raw')}
            >
              Raw
            </button>
            <button
              type="button"
              className="button button-small"
              aria-pressed={mode === 'form'}
              onClick={() => setMode('form')}
            >
              Form
            </button>
          </div>
        ) : null}
        {saveState.kind === 'saved' && !dirty ? <span className="ok-text small">Saved</span> : null}
        {saveState.kind === 'refused' ? (
          <span className="error-text small" role="alert">
            Not saved: fix the {saveState.count} error{saveState.count === 1 ? '' : 's'} first
          </span>
        ) : null}
        <button
          type="button"
          className="button button-primary"
          onClick={() => void save()}
          disabled={loaded === null || saveState.kind === 'saving'}
          aria-label={`Save ${file}`}
        >
          Save
        </button>
      </div>
      {loadError ? <p className="muted small">{loadError}</p> : null}
      <div className="catalog-editor-body">
        {loaded && mode === 'form' ? (
          <CatalogForm file={file} text={text} problems={problems} onChange={replaceText} />
        ) : null}
        {loaded && mode === 'raw' ? (
          <CodeEditor
            ref={editor}
            documentKey={`${loaded.file}#${loaded.revision}`}
            initialText={loaded.text}
            theme={theme}
            ariaLabel={`${file} text`}
            language={yamlLanguage}
            problemGutter
            extraKeys={extraKeys}
            onChange={(next) => {
              setText(next);
              if (saveState.kind !== 'saving') setSaveState({ kind: 'clean' });
            }}
          />
        ) : null}
        {loaded === null ? <p className="muted">Loading…</p> : null}
      </div>
      <div className="problems-pane" aria-label="Problems">
        <h3>Problems</h3>
        {problems.length === 0 ? (
          <p className="muted small">No problems.</p>
        ) : (
          <ul className="problem-list">
            {problems.map((problem, index) => (
              <li key={index}>
                <button
                  type="button"
                  className={`problem-item severity-${problem.severity}`}
                  onClick={() => {
                    if (mode === 'raw') editor.current?.moveCursor(problem.line, problem.column);
                    else {
                      setMode('raw');
                      setPendingCursor({ line: problem.line, column: problem.column });
                    }
                  }}
                  aria-label={`${problem.file}:${problem.line}:${problem.column} ${problem.message}`}
                >
                  <span className="problem-location">
                    {problem.file}:{problem.line}:{problem.column}
                  </span>
                  <span className="problem-message">{problem.message}</span>
                  {problem.fix ? <span className="problem-fix">Fix: {problem.fix}</span> : null}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
