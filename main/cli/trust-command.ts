/**
 * Workspace trust at the terminal: `promptforge trust` (show the manifest, trust, revoke, list,
 * approve key origins) and the question `run` and `mcp list` ask before a restricted workspace
 * would run anything. Trust is read only from a person at a terminal or from `--yes`, never from
 * piped stdin or an environment variable.
 *
 * The trust store (zod) and the manifest are imported only when a command reads a workspace's
 * trust, so `--help`, `--version` and `keys` start without them.
 */
import os from 'node:os';
import { createInterface } from 'node:readline';
import path from 'node:path';
import type { Workspace } from '../core/catalog/workspace.js';
import { userConfigDir } from '../core/trust/config-dir.js';
import type * as KeyOriginsModule from '../core/trust/key-origins.js';
import type * as TrustStoreModule from '../core/trust/trust-store.js';
import type { TrustStore, WorkspaceTrust } from '../core/trust/trust-store.js';
import type * as ManifestModule from '../core/trust/workspace-manifest.js';
import type * as ManifestWordsModule from '../core/trust/manifest-words.js';
import type { ManifestChange } from '../../common/trust-schemas.js';
import { PROVIDER_PRESETS } from '../core/providers/presets.js';
import { parse } from './cli-args.js';
import { UsageError, CommandError } from './cli-errors.js';
import { forLauncher, type CliIo, type Printer } from './cli-io.js';
import { loadCatalogModules, workspaceRoot } from './cli-workspace.js';
import { EXIT } from './exit-codes.js';
import { shellWord, terminalSafe } from './terminal-text.js';

interface TrustModules {
  TrustStore: typeof TrustStoreModule.TrustStore;
  TrustChangedError: typeof TrustStoreModule.TrustChangedError;
  manifestText: typeof ManifestWordsModule.manifestText;
  manifestDiff: typeof ManifestWordsModule.manifestDiff;
  originOf: typeof ManifestModule.originOf;
  providerHomeOrigin: typeof KeyOriginsModule.providerHomeOrigin;
}
let trustModules: TrustModules | undefined;
async function loadTrustModules(): Promise<TrustModules> {
  if (trustModules === undefined) {
    const [store, manifest, words, origins] = await Promise.all([
      import('../core/trust/trust-store.js'),
      import('../core/trust/workspace-manifest.js'),
      import('../core/trust/manifest-words.js'),
      import('../core/trust/key-origins.js'),
    ]);
    trustModules = {
      TrustStore: store.TrustStore,
      TrustChangedError: store.TrustChangedError,
      manifestText: words.manifestText,
      manifestDiff: words.manifestDiff,
      originOf: manifest.originOf,
      providerHomeOrigin: origins.providerHomeOrigin,
    };
  }
  return trustModules;
}

/** The trust store of this user (PROMPTFORGE_CONFIG_DIR, or the studio's userData folder). */
async function trustStore(io: CliIo): Promise<TrustStore> {
  const { TrustStore } = await loadTrustModules();
  return new TrustStore(userConfigDir({ platform: process.platform, env: io.env, home: os.homedir() }));
}

/** The workspace is restricted and there was no terminal to ask on: exit {@link EXIT.untrusted}. */
export class UntrustedError extends Error {
  readonly kind = 'untrusted';
  constructor(message: string) {
    super(message);
    this.name = 'UntrustedError';
  }
}

/** One answer typed at the terminal, or undefined when stdin is not a terminal (never read from a pipe). */
async function askAtTerminal(io: CliIo, question: string): Promise<string | undefined> {
  if (!io.stdin.isTTY) return undefined;
  io.stderr.write(terminalSafe(question));
  const reader = createInterface({ input: io.stdin, terminal: false, crlfDelay: Infinity });
  try {
    return await new Promise<string>((resolve) => {
      reader.once('line', (line) => resolve(line.trim().toLowerCase()));
      reader.once('close', () => resolve(''));
    });
  } finally {
    reader.close();
    io.stdin.pause();
  }
}

/**
 * The manifest as the person reads it before deciding: what changed since it was shown (when it
 * changed while they decided), what changed since they trusted it, then all of it.
 */
function printManifest(
  print: Printer,
  modules: TrustModules,
  trust: WorkspaceTrust,
  sinceShown: readonly ManifestChange[] = [],
): void {
  if (sinceShown.length > 0) {
    print.err('What changed since it was shown to you:');
    for (const change of sinceShown) print.err(`  ${change.text}`);
  }
  if (trust.changes?.length) {
    print.err('It changed since you trusted it:');
    for (const change of trust.changes) print.err(`  ${change.text}`);
    print.err('What it would run now, in full:');
  } else print.err('Trusting it lets it run this, with your own rights:');
  for (const line of modules.manifestText(trust.manifest)) print.err(`  ${line}`);
}

/** How to trust, for messages. */
function howToTrust(io: CliIo, root: string): string {
  return forLauncher(`promptforge trust --workspace ${shellWord(root)}`, io.env);
}

/** A workspace's trust as a command goes on with it. */
export interface TrustDecision {
  state: WorkspaceTrust['state'];
  store: TrustStore;
  /**
   * The workspace to go on with: the one given, or, once a person trusted it, the workspace read
   * again when they answered (its manifest is the one they were shown).
   */
  workspace: Workspace;
}

/**
 * The trust a run or a server listing gets. `restricted` (the person's `--restricted`) goes on
 * restricted without looking. A trusted workspace (or one with nothing to trust) goes on. A
 * restricted one asks on a terminal, showing the manifest (and what changed): `y` trusts it, `r`
 * goes on restricted (when `offerRestricted`), anything else stops. The workspace is read again
 * when the person answers `y`, and trusted only if it is still what they were shown; else the
 * change is shown and they are asked again. Without a terminal it stops with {@link UntrustedError}.
 */
export async function decideWorkspaceTrust(
  workspace: Workspace,
  io: CliIo,
  print: Printer,
  options: { restricted: boolean; what: string; offerRestricted?: boolean },
): Promise<TrustDecision> {
  const modules = await loadTrustModules();
  const store = await trustStore(io);
  if (options.restricted) return { state: 'restricted', store, workspace };
  const offerRestricted = options.offerRestricted ?? true;
  let trust = await store.workspaceTrust(workspace);
  let sinceShown: ManifestChange[] = [];
  for (;;) {
    if (trust.state !== 'restricted') return { state: trust.state, store, workspace };
    if (!io.stdin.isTTY) {
      if (trust.changes?.length) {
        print.err(`${trust.path} changed since you trusted it:`);
        for (const change of trust.changes) print.err(`  ${change.text}`);
      }
      throw new UntrustedError(
        `${trust.path} is not a trusted workspace${trust.changes?.length ? ' (it changed since you trusted it)' : ''}, and there is no terminal to ask on. ` +
          `Read what it would run and trust it with \`${howToTrust(io, trust.path)}\` (in CI: add --yes, which is your decision)` +
          (offerRestricted
            ? `, or pass --restricted to ${options.what} without its command tools, MCP servers and secrets`
            : ''),
      );
    }
    if (sinceShown.length === 0) print.say(`${trust.path} is not a trusted workspace.`);
    printManifest(print, modules, trust, sinceShown);
    const answer = await askAtTerminal(
      io,
      offerRestricted
        ? `Trust this workspace? [y]es, [r]estricted (run nothing of it), [N]o: `
        : `Trust this workspace? [y]es, [N]o: `,
    );
    if (offerRestricted && (answer === 'r' || answer === 'restricted'))
      return { state: 'restricted', store, workspace };
    if (answer !== 'y' && answer !== 'yes') throw new UntrustedError(`not trusted; nothing of ${trust.path} ran`);
    // What is trusted is what is on disk now, and only if it is what the person read.
    const { loadWorkspace } = await loadCatalogModules();
    const current = await loadWorkspace(workspace.root);
    try {
      const trusted = await store.trust(current, trust.digest, 'terminal');
      return { state: trusted.state, store, workspace: current };
    } catch (error) {
      if (!(error instanceof modules.TrustChangedError)) throw error;
      print.say(error.message);
      sinceShown = modules.manifestDiff(trust.manifest, error.current.manifest);
      trust = error.current;
      workspace = current;
    }
  }
}

/**
 * Before a run of a trusted workspace: for the model it will use first, a key that would go to an
 * origin that is not its provider's and that nobody approved is asked for on a terminal (and
 * remembered). A provider that needs no key is not asked about: its requests go without one. A
 * restricted workspace is never asked for (see key-origins.ts): its run refuses the key and says
 * how to approve the origin.
 */
export async function decideKeyOrigin(
  io: CliIo,
  print: Printer,
  trust: Pick<TrustDecision, 'state' | 'store'>,
  model: { alias: string; provider: string; baseUrl?: string } | undefined,
): Promise<void> {
  if (trust.state === 'restricted' || !io.stdin.isTTY) return; // The run refuses the key itself, with how to approve it.
  if (!model?.baseUrl || !Object.hasOwn(PROVIDER_PRESETS, model.provider)) return;
  const preset = PROVIDER_PRESETS[model.provider as keyof typeof PROVIDER_PRESETS];
  // A provider that works without a key (a local server) just gets none: nothing to ask about.
  if (!preset.needsKey) return;
  const { originOf, providerHomeOrigin } = await loadTrustModules();
  const origin = originOf(model.baseUrl);
  if (origin === undefined || origin === providerHomeOrigin(model.provider)) return;
  if (await trust.store.keyOriginApproved(model.provider, origin)) return;
  const label = preset.label;
  print.say(`model "${model.alias}" sends requests to ${origin}, which is not ${label}'s own API.`);
  const answer = await askAtTerminal(io, `Send your ${label} key (if you have one) to ${origin}? [y]es, [N]o: `);
  if (answer === 'y' || answer === 'yes') await trust.store.approveKeyOrigin(model.provider, origin, 'terminal');
}

export async function trustCommand(args: string[], io: CliIo, print: Printer): Promise<number> {
  const { values, positionals } = parse('trust', args, {
    workspace: { type: 'string' },
    yes: { type: 'boolean' },
    show: { type: 'boolean' },
    revoke: { type: 'boolean' },
    'allow-key': { type: 'string' },
    'revoke-key': { type: 'string' },
  });
  const actions = (['show', 'revoke', 'allow-key', 'revoke-key'] as const).filter((flag) => values[flag] !== undefined);
  if (actions.length > 1) throw new UsageError(`use one of --${actions.join(', --')} at a time`);
  const via = values.yes ? 'cli --yes' : 'terminal';
  if (values.show) {
    if (positionals.length > 0 || values.yes || values.workspace !== undefined)
      throw new UsageError('--show takes nothing else');
    return showTrust(await trustStore(io), print);
  }
  for (const flag of ['allow-key', 'revoke-key'] as const) {
    const provider = values[flag];
    if (provider === undefined) continue;
    const [origin, ...extra] = positionals;
    if (origin === undefined || extra.length > 0)
      throw new UsageError(
        `--${flag} PROVIDER ORIGIN: give the provider id and one origin, e.g. --${flag} openai http://127.0.0.1:8080`,
      );
    if (values.workspace !== undefined)
      throw new UsageError(`--${flag} is about your key, in every workspace: it takes no --workspace`);
    if (!Object.hasOwn(PROVIDER_PRESETS, provider))
      throw new UsageError(`unknown provider "${provider}"; known: ${Object.keys(PROVIDER_PRESETS).join(', ')}`);
    const { originOf } = await loadTrustModules();
    const exact = originOf(origin);
    if (exact === undefined || !/^https?:$/.test(new URL(origin).protocol))
      throw new UsageError(`${origin} is not an http(s) origin; write it as scheme://host[:port]`);
    const store = await trustStore(io);
    if (flag === 'allow-key') {
      if (!values.yes && !io.stdin.isTTY)
        throw new UntrustedError(
          `approving ${exact} for the ${provider} key needs a terminal to ask on, or --yes (which is your decision); nothing was approved`,
        );
      if (!values.yes) {
        const answer = await askAtTerminal(io, `Send your ${provider} key to ${exact}? [y]es, [N]o: `);
        if (answer !== 'y' && answer !== 'yes') throw new UntrustedError('not approved');
      }
      await store.approveKeyOrigin(provider, exact, via);
      print.out(`${provider} key may go to ${exact}`);
    } else {
      const removed = await store.revokeKeyOrigin(provider, exact, via);
      print.out(
        removed ? `${provider} key no longer goes to ${exact}` : `${exact} was not approved for the ${provider} key`,
      );
    }
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError('trust takes at most one folder');
  if (positionals.length === 1 && values.workspace !== undefined)
    throw new UsageError('give the folder once: either trust DIR or --workspace DIR');
  const flag = values.workspace ?? positionals[0];
  if (values.revoke) {
    // A trusted folder that was moved or deleted can still be revoked by its old path.
    const root = flag !== undefined ? path.resolve(io.cwd, flag) : await workspaceRoot(io, undefined);
    if (root === undefined)
      throw new CommandError(
        `no workspace here (no promptforge.yaml, tools.yaml or models.yaml in ${io.cwd} or above); give one with --workspace DIR`,
      );
    const removed = await (await trustStore(io)).revokeWorkspace(root, via);
    print.out(removed ? `${root} is no longer trusted` : `${root} was not trusted`);
    return EXIT.ok;
  }
  const root = await workspaceRoot(io, flag);
  if (root === undefined)
    throw new CommandError(
      `no workspace here (no promptforge.yaml, tools.yaml or models.yaml in ${io.cwd} or above); give one with --workspace DIR`,
    );
  const modules = await loadTrustModules();
  const store = await trustStore(io);
  const { loadWorkspace, formatProblem } = await loadCatalogModules();
  const workspace = await loadWorkspace(root);
  for (const problem of workspace.problems) print.err(formatProblem(problem));
  let trust = await store.workspaceTrust(workspace);
  let sinceShown: ManifestChange[] = [];
  for (;;) {
    if (trust.state === 'empty') {
      print.out(`${trust.path} runs nothing of its own and sends no key or secret anywhere: there is nothing to trust`);
      return EXIT.ok;
    }
    if (trust.state === 'trusted') {
      print.out(`${trust.path} is trusted as it is`);
      return EXIT.ok;
    }
    printManifest(print, modules, trust, sinceShown);
    if (!values.yes) {
      if (!io.stdin.isTTY)
        throw new UntrustedError(
          `no terminal to ask on; read the above, then trust it with \`${howToTrust(io, trust.path)} --yes\` (your decision)`,
        );
      const answer = await askAtTerminal(io, `Trust ${trust.path}? [y]es, [N]o: `);
      if (answer !== 'y' && answer !== 'yes') throw new UntrustedError(`not trusted: ${trust.path} stays restricted`);
    }
    // What is trusted is what is on disk now, and only if it is what was shown.
    const current = await loadWorkspace(root);
    try {
      await store.trust(current, trust.digest, via);
      print.out(`${trust.path} is trusted (digest ${trust.digest.slice(0, 12)}…)`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof modules.TrustChangedError)) throw error;
      print.say(error.message);
      // With --yes nothing was shown to a person: refuse instead of trusting what changed.
      if (values.yes)
        throw new UntrustedError('the workspace changed while it was being trusted; run the command again');
      sinceShown = modules.manifestDiff(trust.manifest, error.current.manifest);
      trust = error.current;
    }
  }
}

async function showTrust(store: TrustStore, print: Printer): Promise<number> {
  const contents = await store.read();
  print.out(`Config folder: ${store.configDir}`);
  print.out(contents.workspaces.length === 0 ? 'No trusted workspaces.' : 'Trusted workspaces:');
  for (const entry of contents.workspaces)
    print.out(
      `  ${entry.path}  (trusted ${entry.trustedAt}; revoke: promptforge trust --revoke --workspace ${shellWord(entry.path)})`,
    );
  print.out(contents.keyOrigins.length === 0 ? 'No approved key origins.' : 'Approved key origins:');
  for (const entry of contents.keyOrigins)
    print.out(
      `  ${entry.provider} key -> ${entry.origin}  (approved ${entry.approvedAt}; revoke: promptforge trust --revoke-key ${entry.provider} ${entry.origin})`,
    );
  print.out(`Every decision is logged in ${store.logFile}`);
  return EXIT.ok;
}
