import { useEffect, useRef, useState } from 'react';
import type { AppInfo } from '../../../common/contract.js';
import type { IpcError } from '../../../common/contract-ipc.js';

/** Why the info is missing: the call's error, or `transport` when the call itself broke. */
type AboutFailure = IpcError | { code: 'transport'; message: string };

type AboutState = { kind: 'loading' } | { kind: 'ready'; info: AppInfo } | { kind: 'failed'; error: AboutFailure };

/** Side panel with the studio's version, runtime versions and data folders (from `app:info`). */
export function AboutPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const [state, setState] = useState<AboutState>({ kind: 'loading' });
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    let current = true;
    window.promptforge['app:info']({}).then(
      (result) => {
        if (!current) return;
        setState(result.ok ? { kind: 'ready', info: result.value } : { kind: 'failed', error: result.error });
      },
      (error: unknown) => {
        if (!current) return;
        setState({ kind: 'failed', error: { code: 'transport', message: String(error) } });
      },
    );
    closeButton.current?.focus();
    return () => {
      current = false;
    };
  }, []);

  return (
    <aside
      id={id}
      className="about-panel"
      aria-labelledby={`${id}-title`}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      <div className="panel-header">
        <h2 id={`${id}-title`}>About</h2>
        <button
          ref={closeButton}
          type="button"
          className="button button-quiet"
          aria-label="Close About"
          onClick={onClose}
        >
          <span aria-hidden="true">✕</span>
        </button>
      </div>
      {state.kind === 'loading' ? <p className="muted">Loading…</p> : null}
      {state.kind === 'failed' ? (
        <p role="alert" className="error-text">
          Could not read the app info ({state.error.code}): {state.error.message}
        </p>
      ) : null}
      {state.kind === 'ready' ? <AppInfoDetails info={state.info} /> : null}
    </aside>
  );
}

function AppInfoDetails({ info }: { info: AppInfo }) {
  const outsideElectron = 'not running in Electron';
  const rows: Array<[label: string, value: string | null, whenAbsent: string]> = [
    ['Version', info.version, ''],
    ['Platform', info.platform, ''],
    ['Electron', info.versions.electron, outsideElectron],
    ['Chromium', info.versions.chrome, outsideElectron],
    ['Node.js', info.versions.node, ''],
    ['V8', info.versions.v8, ''],
    ['Lua VM', info.versions.wasmoon === null ? null : `wasmoon ${info.versions.wasmoon}`, 'not installed'],
  ];
  return (
    <>
      <p className="about-product">{info.name}</p>
      <h3>Versions</h3>
      <dl className="details" aria-label="Versions">
        {rows.map(([label, value, whenAbsent]) => (
          <div key={label} className="details-row">
            <dt>{label}</dt>
            <dd className={value === null ? 'muted' : undefined}>{value ?? whenAbsent}</dd>
          </div>
        ))}
      </dl>
      <h3>Data folders</h3>
      <dl className="details" aria-label="Data folders">
        <div className="details-row">
          <dt>User data</dt>
          <dd>
            <code className="path">{info.paths.userData}</code>
          </dd>
        </div>
        <div className="details-row">
          <dt>Workspace</dt>
          <dd className={info.paths.workspace === null ? 'muted' : undefined}>
            {info.paths.workspace === null ? 'No workspace open' : <code className="path">{info.paths.workspace}</code>}
          </dd>
        </div>
      </dl>
    </>
  );
}
