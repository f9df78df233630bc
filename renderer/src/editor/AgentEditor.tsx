import { useEffect, useMemo, useRef, useState } from 'react';
import type { WorkspaceState } from '../../../common/studio-schemas.js';
import { CodeEditor, type EditorStateKeeper } from './CodeEditor';
import { openFilesStore } from './open-files-store';
import { MAX_MESSAGE_CHARS, agentMessages, useAgentMessage } from './agent-messages';
import { stopShortcutLabel } from '../shell/keyboard';
import { luaCompletion, luaDiagnostics, luaLanguage } from './lua-language';
import type { Theme } from '../shell/theme';
import { call, describeError } from '../shell/studio-api';

/** The center editor for one agent script, with its Run / Replay / Stop / Save toolbar. */
export function AgentEditor({
  path,
  revision,
  initialText,
  dirty,
  workspace,
  theme,
  running,
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
  onChange: (text: string) => void;
  onRun: () => void;
  onReplay: (() => void) | undefined;
  onStop: () => void;
  onSave: () => void;
}) {
  const catalog = useRef({ tools: [] as string[], models: [] as string[] });
  const message = useAgentMessage(path);
  const messageId = `agent-message-${path}`;
  // The agent's model list: its default, the person's choice (kept by main in the config folder).
  const models = workspace.agentModels[path];
  const chosen = models?.chosen ?? null;
  const [modelError, setModelError] = useState<{ path: string; text: string } | null>(null);
  const modelCall = (work: Promise<unknown>): void => {
    setModelError(null);
    work.catch((error: unknown) => setModelError({ path, text: describeError(error) }));
  };
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
          className="select model-select"
          value={chosen ?? ''}
          onChange={(event) =>
            modelCall(call('model:choose', { path, model: event.target.value === '' ? null : event.target.value }))
          }
          aria-label="Model for live runs of this agent"
          title={
            chosen === null
              ? `Model for live runs: this agent's default${models?.default ? ` (${models.default}, ${models.defaultFrom === 'agent' ? "the agent's setting" : 'defaultModel'} in promptforge.yaml)` : ''}`
              : `Model for live runs: ${chosen}, your choice for this agent (kept on this computer, not in the workspace)`
          }
        >
          <option value="">default{models?.default ? ` (${models.default})` : ' (none)'}</option>
          {workspace.models.map((entry) => (
            <option key={entry.alias} value={entry.alias}>
              {entry.alias}
            </option>
          ))}
        </select>
        {chosen !== null ? (
          <button
            type="button"
            className="button"
            onClick={() => modelCall(call('model:make-default', { path, model: chosen }))}
            title={`Write ${chosen} as this agent's default in promptforge.yaml, for everyone who shares the workspace`}
          >
            Make default
          </button>
        ) : null}
        {/* aria-disabled, not disabled: a button clicked and then made unavailable keeps the focus. */}
        <button
          type="button"
          className="button"
          onClick={() => {
            if (dirty) onSave();
          }}
          aria-disabled={!dirty}
          title={dirty ? 'Save (Ctrl/⌘+S)' : 'Saved: nothing to save'}
        >
          Save
        </button>
        {onReplay ? (
          <button
            type="button"
            className="button"
            onClick={() => {
              if (!running) onReplay();
            }}
            aria-disabled={running}
            title="Answer the model and tools from the recording, offline"
          >
            Run offline (replay)
          </button>
        ) : null}
        {/* One button that turns from Run into Stop and back: focus stays on it while the run goes. */}
        <button
          type="button"
          className={running ? 'button button-danger run-button' : 'button button-primary run-button'}
          onClick={running ? onStop : onRun}
          title={running ? `Stop (${stopShortcutLabel})` : 'Run (Ctrl/⌘+Enter)'}
        >
          {running ? (
            <>
              <span className="spinner" aria-hidden="true" /> Stop
            </>
          ) : (
            '▶ Run'
          )}
        </button>
      </div>
      {models?.unavailable ? (
        <p className="editor-note" role="status">
          {models.unavailable.message}
        </p>
      ) : null}
      {modelError?.path === path ? (
        <p className="editor-note editor-note-error" role="alert">
          {modelError.text}
        </p>
      ) : null}
      <div className="agent-message">
        <label htmlFor={messageId}>Message</label>
        <textarea
          id={messageId}
          className="text-input agent-message-input"
          rows={1}
          value={message}
          maxLength={MAX_MESSAGE_CHARS}
          onChange={(event) => agentMessages.set(path, event.target.value)}
          aria-describedby={`${messageId}-hint`}
        />
        <span id={`${messageId}-hint`} className="muted small agent-message-hint">
          the script’s <code>...</code>
        </span>
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
