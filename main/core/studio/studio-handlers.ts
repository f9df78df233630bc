import {
  contractMethods,
  type ContractMethodName,
  type ContractResponse,
  type IpcResult,
} from '../../../common/contract.js';
import { dispatchCall, type ContractHandlerTable } from './contract-dispatcher.js';
import { collectRuntimeVersions, readInstalledPackageVersion, type RuntimeVersions } from './runtime-versions.js';
import { createConsoleLogger, type StudioLogger } from './studio-logger.js';
import type { StudioService } from './studio-service.js';

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
  /** The studio's state in main: workspace, runs, approvals, keychain. */
  service: StudioService;
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

  const { service } = deps;
  return {
    'app:info': () => ({
      name: deps.appName,
      version: deps.appVersion,
      platform,
      versions: { ...runtimeVersions, wasmoon: wasmoonVersion },
      paths: { userData: deps.userDataDirectory, workspace: service.workspaceRoot },
    }),
    'workspace:choose': async () => ({ path: await service.chooseFolder() }),
    'workspace:open': ({ path }) => service.openChosenWorkspace(path),
    'workspace:open-example': () => service.openExample(),
    'workspace:state': () => service.state(),
    'file:read': ({ path }) => service.readFile(path),
    'file:write': ({ path, text }) => service.writeScript(path, text),
    'file:create': ({ name, template }) => service.createAgent(name, template),
    'file:save-as': ({ name, text }) => service.saveAgentAs(name, text),
    'file:rename': ({ path, name }) => service.renameAgent(path, name),
    'file:delete': ({ path }) => service.deleteAgent(path),
    'tool:trial': ({ alias, arguments: args }) => service.tryTool(alias, args),
    'args:check': ({ alias, arguments: args, runId }) => service.checkToolArguments(alias, args, runId),
    'catalog:check': ({ file, text }) => service.checkCatalog(file, text),
    'catalog:write': ({ file, text }) => service.writeCatalog(file, text),
    'run:start': (request) => service.startRun(request),
    'run:fork': (request) => service.forkRun(request),
    'run:stop': ({ runId }) => service.stopRun(runId),
    'approval:list': () => service.listApprovals(),
    'approval:decide': ({ runId, callId, decision }) => service.decide(runId, callId, decision),
    'keys:status': () => service.keyStatus(),
    'keys:set': ({ key, ...target }) => service.setKey(target, key),
    'keys:delete': (target) => service.deleteKey(target),
    'history:export': ({ runId }) => service.exportRun(runId),
    'history:page': ({ runId, from, count }) => service.readPage(runId, from, count),
    'history:compare': ({ left, right, from, count }) =>
      service.compare(left, right, { ...(from !== undefined && { from }), ...(count !== undefined && { count }) }),
    'mcp:list': () => service.listMcp(),
    'mcp:status': () => service.mcpStatus(),
    'mcp:restart': ({ server }) => service.restartMcp(server),
    'mcp:stop': ({ server }) => service.stopMcp(server),
    'tests:list': () => service.tests.list(),
    'tests:run': (request) => service.tests.run(request),
    'tests:stop': () => service.tests.stop(),
    'trust:status': () => service.trustStatus(),
    'trust:grant': ({ digest }) => service.grantTrust(digest),
    'trust:list': () => service.listTrust(),
    'trust:revoke': ({ path }) => service.revokeTrust(path),
    'trust:revoke-key-origin': ({ provider, origin }) => service.revokeKeyOrigin(provider, origin),
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
