import { useId, useState } from 'react';
import type { ContractErrorCode } from '../../../common/contract-errors.js';
import type { ForkEdit } from '../../../common/run-events.js';
import type { ModelSummary } from '../../../common/studio-schemas.js';
import { Modal } from '../shell/Dialogs';
import { errorMessage } from '../../../common/error-message.js';
import { call, StudioCallError } from '../shell/studio-api';

/** A row of the conversation a fork may start from: a model round or a tool call's outcome. */
export interface ForkTarget {
  runId: string;
  /** The seq of the round-response, tool-output or tool-error event. */
  step: number;
  kind: 'model' | 'tool';
  /** `model round 2`, `tool echo (call-1)`. */
  label: string;
  /** The reply text or output as recorded, to start an edit from. */
  text: string;
}

/** Why a fork failed, as the contract says it (`script-changed` offers to fork anyway). */
function errorCode(error: unknown): ContractErrorCode | undefined {
  return error instanceof StudioCallError ? error.code : undefined;
}

/** What the dialog says when the core refuses with `script-changed` (it then offers Fork anyway). */
const SCRIPT_CHANGED =
  'The script changed since this run was recorded, so the recording may not fit it. Fork anyway replays this run against the current script.';

/**
 * "Fork from here": a new run of the same script, answered from the run's recording up to the
 * step, with an optional edit there, then live with a chosen model or on replay.
 */
export function ForkDialog({
  target,
  models,
  onClose,
  onForked,
}: {
  target: ForkTarget;
  models: ModelSummary[];
  onClose: () => void;
  onForked: (runId: string) => void;
}) {
  const editFieldsId = useId();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(target.text);
  const [calls, setCalls] = useState('');
  const [model, setModel] = useState('');
  const [error, setError] = useState<{ code?: ContractErrorCode; message: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const fork = async (force: boolean): Promise<void> => {
    let edit: ForkEdit | undefined;
    if (editing) {
      if (target.kind === 'tool') edit = { output: text };
      else {
        edit = { reply: text };
        if (calls.trim() !== '') {
          try {
            edit.calls = JSON.parse(calls) as ForkEdit['calls'];
          } catch (failure) {
            setError({ message: `The calls are not JSON: ${(failure as Error).message}` });
            return;
          }
        }
      }
    }
    setBusy(true);
    setError(null);
    try {
      const { runId } = await call('run:fork', {
        runId: target.runId,
        step: target.step,
        ...(edit && { edit }),
        ...(model !== '' && { model }),
        ...(force && { force: true }),
      });
      onForked(runId);
    } catch (failure) {
      // The core's message, without its code: the codes and CLI wording are not the studio's.
      const code = errorCode(failure);
      setError({ ...(code !== undefined && { code }), message: errorMessage(failure) });
    } finally {
      setBusy(false);
    }
  };

  const what = target.kind === 'tool' ? 'output' : 'reply';
  return (
    <Modal
      title={`Fork from step ${target.step}`}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          {error?.code === 'script-changed' ? (
            <button type="button" className="button" disabled={busy} onClick={() => void fork(true)}>
              Fork anyway
            </button>
          ) : null}
          <button type="button" className="button button-primary" disabled={busy} onClick={() => void fork(false)}>
            Fork
          </button>
        </>
      }
    >
      <p>
        A new run of the same script, answered from this run up to <strong>{target.label}</strong> (step {target.step}),
        offline.
      </p>
      <div className="fork-option">
        <label className="fork-field-inline">
          <input
            type="checkbox"
            checked={editing}
            onChange={(event) => setEditing(event.target.checked)}
            aria-controls={editing ? editFieldsId : undefined}
            autoFocus
          />{' '}
          Edit the {what} at this step
        </label>
        {editing ? (
          <div className="fork-edit-fields" id={editFieldsId}>
            <label className="fork-field">
              <span>{target.kind === 'tool' ? 'Tool output' : 'Reply text'}</span>
              <textarea
                className="text-input fork-edit"
                rows={6}
                value={text}
                spellCheck={false}
                onChange={(event) => setText(event.target.value)}
              />
            </label>
            {target.kind === 'model' ? (
              <label className="fork-field">
                <span>
                  Requested calls instead (optional JSON, e.g. [{'{"name": "echo", "arguments": {"text": "hi"}}'}])
                </span>
                <textarea
                  className="text-input fork-edit"
                  rows={3}
                  value={calls}
                  spellCheck={false}
                  onChange={(event) => setCalls(event.target.value)}
                />
              </label>
            ) : null}
          </div>
        ) : null}
      </div>
      <label className="fork-field">
        <span>Then go on with</span>
        <select className="select" value={model} onChange={(event) => setModel(event.target.value)}>
          <option value="">the recording (replay while the script still matches)</option>
          {models.map((m) => (
            <option key={m.alias} value={m.alias}>
              {m.alias} ({m.provider} {m.model}), live
            </option>
          ))}
        </select>
      </label>
      {error ? (
        <p className={error.code === 'script-changed' ? 'fork-warning' : 'error-text'} role="alert">
          {error.code === 'script-changed' ? SCRIPT_CHANGED : error.message}
        </p>
      ) : null}
    </Modal>
  );
}
