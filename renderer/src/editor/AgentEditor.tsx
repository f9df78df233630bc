import { useEffect, useMemo, useRef } from 'react';
import type { WorkspaceState } from '../../../common/studio-schemas.js';
import { CodeEditor, type EditorStateKeeper } from './CodeEditor';
import { openFilesStore } from './open-files-store';
import { stopShortcutLabel } from '../shell/keyboard';
import { luaCompletion, luaDiagnostics, luaLanguage } from './lua-language';
import type { Theme } from '../shell/theme';

/** The center editor for one agent script, with its Run / Replay / Stop / Save toolbar. */
export function AgentEditor({
  path,
  revision,
  initialText,
  dirty,
  workspace,
  theme,
  running,
  model,
  onModel,
  onChange,
  onRun,
  onReplay,
  onStop,
  onSave,
}: {
  path: string;
  revision: number;
  initialText: string;
  dirty: boolean;
  workspace: WorkspaceState;
  theme: Theme;
  running: boolean;
  model: string;
  onModel: (model: string) => void;
  onChange: (text: string) => void;
  onRun: () => void;
  onReplay: (() => void) | undefined;
  onStop: () => void;
  onSave: () => void;
}) {
  const catalog = useRef({ tools: [] as string[], models: [] as string[] });
  const handlers = useRef({ onRun, onSave });
  // Refs are written after rendering (react-hooks/refs); the editor reads them on a key or completion.
  useEffect(() => {
    catalog.current = {
      tools: [
        'echo',
        'read_file',
        'list_files',
        'http_get',
        'now',
        ...workspace.tools.map((tool) => tool.alias),
      ].filter((alias, index, all) => all.indexOf(alias) === index),
      models: workspace.models.map((entry) => entry.alias),
    };
    handlers.current = { onRun, onSave };
  });
  // luaCompletion keeps the getter and calls it when completing, never during render.
  // eslint-disable-next-line react-hooks/refs
  const completion = useMemo(() => luaCompletion(() => catalog.current), []);
  // Each open file keeps its own editor state (undo history, selection) in the open-files store,
  // so switching tabs and back continues where the file was left.
  const stateKeeper = useMemo<EditorStateKeeper>(
    () => ({
      load: () => openFilesStore.editorState(path),
      keep: (kept) => openFilesStore.keepEditorState(path, revision, kept),
    }),
    [path, revision],
  );
  const extraKeys = useMemo(
    () => [
      {
        key: 'Mod-Enter',
        preventDefault: true,
        run: () => {
          handlers.current.onRun();
          return true;
        },
      },
      {
        key: 'Mod-s',
        preventDefault: true,
        run: () => {
          handlers.current.onSave();
          return true;
        },
      },
    ],
    [],
  );

  return (
    <section className="agent-editor" aria-label={`Editor ${path}`}>
      <div className="editor-toolbar">
        <h2 className="editor-title" title={path}>
          {path.replace(/^agents\//, '')}
          {dirty ? (
            <span className="dirty-dot" aria-label="unsaved changes" title="unsaved changes">
              ●
            </span>
          ) : null}
        </h2>
        <div className="toolbar-spacer" />
        <select
          className="select"
          value={model}
          onChange={(event) => onModel(event.target.value)}
          aria-label="Model for live runs"
          title="Model for live runs"
        >
          <option value="">default{workspace.defaultModel ? ` (${workspace.defaultModel})` : ''}</option>
          {workspace.models.map((entry) => (
            <option key={entry.alias} value={entry.alias}>
              {entry.alias}
            </option>
          ))}
        </select>
        <button type="button" className="button" onClick={onSave} disabled={!dirty} title="Save (Ctrl/⌘+S)">
          Save
        </button>
        {onReplay ? (
          <button
            type="button"
            className="button"
            onClick={onReplay}
            disabled={running}
            title="Answer the model and tools from the recording, offline"
          >
            Run offline (replay)
          </button>
        ) : null}
        {running ? (
          <button type="button" className="button button-danger" onClick={onStop} title={`Stop (${stopShortcutLabel})`}>
            <span className="spinner" aria-hidden="true" /> Stop
          </button>
        ) : (
          <button type="button" className="button button-primary" onClick={onRun} title="Run (Ctrl/⌘+Enter)">
            ▶ Run
          </button>
        )}
      </div>
      <div className="agent-editor-body">
        <CodeEditor
          documentKey={`${path}#${revision}`}
          initialText={initialText}
          theme={theme}
          ariaLabel={`Lua source of ${path}`}
          language={luaLanguage}
          lint={luaDiagnostics}
          completion={completion}
          extraKeys={extraKeys}
          stateKeeper={stateKeeper}
          onChange={onChange}
        />
      </div>
    </section>
  );
}
