/**
 * A workspace file shown read-only (the file tree and quick open open it): its text in a
 * read-only editor, or why it is not shown (too large, binary, not a regular file, outside the
 * workspace). Agent scripts open in their own editor instead, editable.
 */
import { useEffect, useRef, useState } from 'react';
import type { FileView } from '../../../common/studio-schemas.js';
import { call, describeError } from '../shell/studio-api';
import type { Theme } from '../shell/theme';
import { CodeEditor, type CodeEditorHandle } from './CodeEditor';
import { escapeHidden } from '../run/hidden-characters';

export function FileViewer({ path, theme, focusText = false }: { path: string; theme: Theme; focusText?: boolean }) {
  const editor = useRef<CodeEditorHandle>(null);
  const [view, setView] = useState<{ path: string; file: FileView } | { path: string; error: string } | null>(null);
  useEffect(() => {
    let live = true;
    call('file:view', { path }).then(
      (file) => live && setView({ path, file }),
      (error: unknown) => live && setView({ path, error: describeError(error) }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  const shown = view?.path === path ? view : null;
  // A file just made (a new test file): focus goes into its text once it shows.
  const textShown = shown !== null && 'file' in shown && shown.file.kind === 'text';
  useEffect(() => {
    if (focusText && textShown) editor.current?.focus();
  }, [focusText, textShown]);
  return (
    <section className="file-viewer" aria-label={`File ${path}`}>
      <div className="editor-toolbar">
        <h2 className="editor-title" title={escapeHidden(path)}>
          {escapeHidden(path)}
        </h2>
        <span className="tag">read-only</span>
      </div>
      {shown === null ? (
        <p className="muted panel-empty">Reading {escapeHidden(path)}…</p>
      ) : 'error' in shown ? (
        <p className="error-text panel-empty" role="alert">
          {shown.error}
        </p>
      ) : shown.file.kind === 'text' ? (
        <div className="agent-editor-body">
          <CodeEditor
            ref={editor}
            documentKey={`view:${path}`}
            initialText={shown.file.text}
            theme={theme}
            ariaLabel={`Text of ${path} (read-only)`}
            readOnly
          />
        </div>
      ) : (
        <p className="muted panel-empty" role="status">
          {shown.file.message}
        </p>
      )}
    </section>
  );
}
