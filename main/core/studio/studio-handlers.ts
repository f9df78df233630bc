import {
  contractMethods,
  type ContractMethodName,
  type ContractResponse,
  type IpcResult,
} from '../../../common/contract.js';
import { dispatchCall, type ContractHandlerTable } from './contract-dispatcher.js';
import { collectRuntimeVersions, readInstalledPackageVersion, type RuntimeVersions } from './runtime-versions.js';
import { createConsoleLogger, type StudioLogger } from './studio-logger.js';

/**
 * What the studio's handlers need from their host. The Electron glue passes `app.getName()`,
 * `app.getVersion()` and `app.getPath('userData')`; the end-to-end bridge passes test folders.
 */
export interface StudioHandlerDeps {
  /** Product name shown in the About panel. */
  appName: string;
  /** The app's version (package.json `version`). */
  appVersion: string;
  /** Absolute path of the per-user data folder. */
  userDataDirectory: string;
  /** The open workspace's absolute path, or `null` when none is open. Read on every call. */
  getWorkspaceDirectory: () => string | null;
  /** Defaults to this process's versions. */
  runtimeVersions?: RuntimeVersions;
  /** Defaults to the installed wasmoon's package.json version. */
  wasmoonVersion?: string | null;
  /** Defaults to `${process.platform}-${process.arch}`. */
  platform?: string;
}

/** One handler per contract method. */
export type StudioHandlers = ContractHandlerTable<typeof contractMethods>;

/**
 * Builds the implementation of every contract method. Each method is one function here; the
 * TypeScript type makes a missing method a compile error.
 */
export function createStudioHandlers(deps: StudioHandlerDeps): StudioHandlers {
  const runtimeVersions = deps.runtimeVersions ?? collectRuntimeVersions();
  const wasmoonVersion =
    deps.wasmoonVersion === undefined ? readInstalledPackageVersion('wasmoon') : deps.wasmoonVersion;
  const platform = deps.platform ?? `${process.platform}-${process.arch}`;

  return {
    'app:info': () => ({
      name: deps.appName,
      version: deps.appVersion,
      platform,
      versions: { ...runtimeVersions, wasmoon: wasmoonVersion },
      paths: { userData: deps.userDataDirectory, workspace: deps.getWorkspaceDirectory() },
    }),
  };
}

const defaultLogger = createConsoleLogger();

/**
 * Runs one call of the app's contract from an untrusted caller (IPC or the test bridge) and
 * never throws. See {@link dispatchCall} for the steps and error codes.
 */
export function dispatchContractCall<M extends ContractMethodName>(
  handlers: StudioHandlers,
  method: M,
  payload: unknown,
  logger?: StudioLogger,
): Promise<IpcResult<ContractResponse<M>>>;
export function dispatchContractCall(
  handlers: StudioHandlers,
  method: unknown,
  payload: unknown,
  logger?: StudioLogger,
): Promise<IpcResult<unknown>>;
export function dispatchContractCall(
  handlers: StudioHandlers,
  method: unknown,
  payload: unknown,
  logger: StudioLogger = defaultLogger,
): Promise<IpcResult<unknown>> {
  return dispatchCall(contractMethods, handlers, method, payload, logger);
}
