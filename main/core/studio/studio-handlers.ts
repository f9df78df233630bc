import { contractMethods, type ContractMethodName, type ContractResponse } from '../../../common/contract.js';
import { type IpcResult } from '../../../common/contract-ipc.js';
import { dispatchCall, type ContractHandlerTable } from './contract-dispatcher.js';
import { collectRuntimeVersions, readInstalledPackageVersion, type RuntimeVersions } from './runtime-versions.js';
import { NO_PRESS, type PersonPress } from './person-input.js';
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

/** What a handler knows about the call besides its request. */
export interface StudioCall {
  /** The person's press that came with the call: it pays for at most one of main's dialogs (see person-input.ts). */
  press: PersonPress;
}

/** One handler per contract method. */
export type StudioHandlers = ContractHandlerTable<typeof contractMethods, StudioCall>;

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
    'workspace:choose': async (_request, { press }) => ({ path: await service.chooseFolder(press) }),
    'workspace:open': ({ path }) => service.openChosenWorkspace(path),
    'workspace:recent': () => service.recentWorkspaces(),
    'workspace:forget-recent': ({ path }) => service.forgetRecentWorkspace(path),
    'workspace:open-example': () => service.openExample(),
    'workspace:state': () => service.state(),
    'file:read': ({ path }) => service.files.readFile(path),
    'file:write': ({ path, text }) => service.files.writeScript(path, text),
    'file:create': ({ name, template }) => service.files.createAgent(name, template),
    'file:save-as': ({ name, text }) => service.files.saveAgentAs(name, text),
    'file:rename': ({ path, name }) => service.files.renameAgent(path, name),
    'file:delete': ({ path }, { press }) => service.files.deleteAgent(path, press),
    'files:list': () => service.files.listFiles(),
    'file:view': ({ path }) => service.files.viewFile(path),
    'model:choose': ({ path, model }) => service.files.chooseModel(path, model),
    'settings:spending-cap': () => service.spendingCap.read(),
    'settings:set-spending-cap': (cap) => service.spendingCap.set(cap),
    'model:make-default': ({ path, model }) => service.files.makeModelDefault(path, model),
    'tool:trial': ({ alias, arguments: args }) => service.tryTool(alias, args),
    'args:check': ({ alias, arguments: args, runId }) => service.checkToolArguments(alias, args, runId),
    'catalog:check': ({ file, text }) => service.files.checkCatalog(file, text),
    'catalog:write': ({ file, text }) => service.files.writeCatalog(file, text),
    'run:start': (request, { press }) => service.startRun(request, press),
    'run:fork': (request, { press }) => service.forkRun(request, press),
    'run:stop': ({ runId }) => service.stopRun(runId),
    'approval:list': () => service.listApprovals(),
    'approval:decide': ({ runId, callId, decision }) => service.decide(runId, callId, decision),
    'keys:status': () => service.keyStatus(),
    'keys:set': ({ key, ...target }, { press }) => service.setKey(target, key, press),
    'keys:delete': (target, { press }) => service.deleteKey(target, press),
    'history:export': ({ runId }, { press }) => service.exportRun(runId, press),
    'history:page': ({ runId, from, count }) => service.readPage(runId, from, count),
    'history:compare': ({ left, right, from, count }) =>
      service.compare(left, right, { ...(from !== undefined && { from }), ...(count !== undefined && { count }) }),
    'mcp:list': () => service.mcp.list(),
    'mcp:status': () => service.mcp.status(),
    'mcp:restart': ({ server }) => service.mcp.restart(server),
    'mcp:stop': ({ server }) => service.mcp.stop(server),
    'mcp:questions': () => service.mcp.person.questions(),
    'mcp:check-answer': ({ id, content }) => service.mcp.person.checkAnswer(id, content),
    'mcp:answer': ({ id, answer }) => service.mcp.person.answer(id, answer),
    'mcp:decide-sampling': ({ id, decision }) => service.mcp.person.decide(id, decision),
    'mcp:resources': ({ server }) => service.mcp.browse.resources(server),
    'mcp:prompts': ({ server }) => service.mcp.browse.prompts(server),
    'mcp:read-resource': ({ server, uri }) => service.mcp.browse.readResource(server, uri),
    'mcp:get-prompt': ({ server, name, arguments: args }) => service.mcp.browse.getPrompt(server, name, args),
    'mcp:login-state': ({ server }) => service.mcp.browse.loginState(server),
    'mcp:login': ({ server }) => service.mcp.browse.login(server),
    'mcp:cancel-login': ({ server }) => service.mcp.browse.cancelLogin(server),
    'mcp:logout': ({ server }, { press }) => service.mcp.browse.logout(server, press),
    'tests:list': () => service.tests.list(),
    'tests:run': (request) => service.tests.run(request),
    'tests:stop': () => service.tests.stop(),
    'tests:create': (request) => service.tests.create(request),
    'trust:status': () => service.trustStatus(),
    'trust:grant': ({ digest }, { press }) => service.grantTrust(digest, press),
    'trust:list': () => service.listTrust(),
    'trust:revoke': ({ path }) => service.revokeTrust(path),
    'trust:allow-key-origin': ({ model }, { press }) => service.allowKeyOrigin(model, press),
    'trust:revoke-key-origin': ({ provider, origin }) => service.revokeKeyOrigin(provider, origin),
    'rules:list': () => service.rules.list(),
    'rules:propose': (call) => service.rules.propose(call),
    'rules:describe': ({ rule, call, replaces }) => service.rules.describe(rule, call, replaces),
    'rules:save': ({ rule, replaces, revision, approve }, { press }) =>
      service.rules.save(
        rule,
        {
          ...(replaces !== undefined && { replaces }),
          ...(revision !== undefined && { revision }),
          ...(approve !== undefined && { approve }),
        },
        press,
      ),
    'rules:set-enabled': ({ id, enabled, revision }, { press }) =>
      service.rules.setEnabled(id, enabled, revision, press),
    'rules:delete': ({ id, revision }, { press }) => service.rules.remove(id, revision, press),
  };
}

const defaultLogger = createConsoleLogger();

/**
 * Runs one call of the app's contract from an untrusted caller (IPC or the test bridge) and
 * never throws. See {@link dispatchCall} for the steps and error codes. `press` is the person's
 * press that came with the call (none by default); once the call is answered it pays for nothing
 * more, so nothing the call started (a run) can open a dialog later.
 */
export function dispatchContractCall<M extends ContractMethodName>(
  handlers: StudioHandlers,
  method: M,
  payload: unknown,
  logger?: StudioLogger,
  press?: PersonPress & { end?(): void },
): Promise<IpcResult<ContractResponse<M>>>;
export function dispatchContractCall(
  handlers: StudioHandlers,
  method: unknown,
  payload: unknown,
  logger?: StudioLogger,
  press?: PersonPress & { end?(): void },
): Promise<IpcResult<unknown>>;
export async function dispatchContractCall(
  handlers: StudioHandlers,
  method: unknown,
  payload: unknown,
  logger: StudioLogger = defaultLogger,
  press: PersonPress & { end?(): void } = NO_PRESS,
): Promise<IpcResult<unknown>> {
  try {
    return await dispatchCall(contractMethods, handlers, method, payload, logger, { press });
  } finally {
    press.end?.();
  }
}
