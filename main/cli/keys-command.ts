/** `promptforge keys set|status|delete`: the provider keys and tool secrets in the OS keychain. */
import type { Workspace } from '../core/catalog/workspace.js';
import type * as SecretScopeModule from '../core/trust/secret-scope.js';
import type { ScopedSecretUse } from '../core/trust/secret-scope.js';
import { SecretStoreUnavailableError, type SecretStore } from '../core/credentials/secret-store.js';
import { PROVIDER_PRESETS } from '../core/providers/presets.js';
import { guessName, meantThen, shownName } from '../core/did-you-mean.js';
import { parse, unknownWord } from './cli-args.js';
import { CommandError, InterruptedError, UsageError } from './cli-errors.js';
import type { CliIo, Printer } from './cli-io.js';
import { loadCatalogModules, workspaceRoot } from './cli-workspace.js';
import { EXIT } from './exit-codes.js';
import { terminalSafe } from './terminal-text.js';

async function readSecret(io: CliIo, name: string): Promise<string> {
  if (io.stdin.isTTY && io.stdin.setRawMode) {
    io.stderr.write(`Paste the key for ${terminalSafe(name)} and press Enter (it is not shown): `);
    io.stdin.setRawMode(true);
    return new Promise((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        for (const char of chunk.toString('utf8')) {
          if (char === '\r' || char === '\n') return done();
          // In raw mode Ctrl-C arrives as a character, not as SIGINT.
          if (char === '\u0003') return done(new InterruptedError());
          if (char === '\u007f') text = text.slice(0, -1);
          else text += char;
        }
      };
      const done = (error?: Error) => {
        io.stdin.off('data', onData);
        io.stdin.setRawMode?.(false);
        io.stdin.pause();
        io.stderr.write('\n');
        if (error) reject(error);
        else resolve(text.trim());
      };
      io.stdin.on('data', onData);
      io.stdin.resume();
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8').trim();
}

export const KEY_ACTIONS = new Set(['set', 'status', 'delete']);

/**
 * The keychain entries `keys` manages: provider ids, and the secrets the workspace's catalogs name,
 * each by its scoped name `NAME@DESTINATION` (one entry per workspace, destination and name; see
 * main/core/trust/secret-scope.ts).
 */
interface KeyNames {
  providers: string[];
  /** Scoped secret name -> the name tools.yaml writes and where it is used. */
  secrets: Map<string, ScopedSecretUse>;
  workspace: Workspace | undefined;
  /** The secret namespaces, loaded only in a workspace (they bring the catalog machinery). */
  scope: typeof SecretScopeModule | undefined;
}

async function keyNames(io: CliIo, workspaceFlag: string | undefined): Promise<KeyNames> {
  let workspace: Workspace | undefined;
  const root = await workspaceRoot(io, workspaceFlag);
  if (root) workspace = await (await loadCatalogModules()).loadWorkspace(root);
  const scope = workspace ? await import('../core/trust/secret-scope.js') : undefined;
  return {
    providers: Object.keys(PROVIDER_PRESETS),
    secrets: workspace && scope ? scope.scopedSecretUses(workspace) : new Map(),
    workspace,
    scope,
  };
}

/**
 * The scoped name `name` means: itself, or the one use of a bare tools.yaml name. A bare name used
 * for several destinations is a usage error listing them (each destination has its own entry).
 */
function secretFor(name: string, names: KeyNames): string | undefined {
  if (names.secrets.has(name)) return name;
  const uses = [...names.secrets].filter(([, use]) => use.name === name).map(([scoped]) => scoped);
  if (uses.length === 1) return uses[0];
  if (uses.length > 1)
    throw new UsageError(
      `"${name}" goes to ${uses.length} places, and each has its own keychain entry; name one: ${uses.join(', ')}`,
    );
  return undefined;
}

/**
 * `store`, with failures other than "no keychain" (an odd entry, a name the keychain refuses)
 * turned into {@link CommandError}s, so they print as one clear line instead of an internal error.
 */
function reportingStore(store: SecretStore): SecretStore {
  const wrap =
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await operation(...args);
      } catch (error) {
        if (error instanceof SecretStoreUnavailableError || !(error instanceof Error)) throw error;
        throw new CommandError(error.message);
      }
    };
  return {
    get: wrap((name) => store.get(name)),
    set: wrap((name, secret) => store.set(name, secret)),
    delete: wrap((name) => store.delete(name)),
    has: wrap((name) => store.has(name)),
  };
}

export async function keysCommand(args: string[], io: CliIo, print: Printer): Promise<number> {
  const { values, positionals } = parse('keys', args, { workspace: { type: 'string' } });
  const [action, name, ...extra] = positionals;
  if (action === undefined || !KEY_ACTIONS.has(action))
    throw new UsageError(
      action === undefined
        ? 'keys needs set NAME, status or delete NAME'
        : unknownWord('keys command', action, [...KEY_ACTIONS], 'use set NAME, status or delete NAME'),
    );
  if (action === 'status' && name !== undefined) throw new UsageError('keys status takes no NAME');
  const names = await keyNames(io, values.workspace);
  if (action === 'set' || action === 'delete') {
    if (!name) throw new UsageError(`keys ${action} needs a provider, e.g. \`promptforge keys ${action} openai\``);
    if (extra.length > 0)
      throw new UsageError(
        action === 'set'
          ? 'the key is read from stdin, never from the command line (it would land in shell history)'
          : 'keys delete takes one provider',
      );
    if (!names.providers.includes(name) && secretFor(name, names) === undefined) {
      const secrets = [...names.secrets.keys()];
      throw new UsageError(
        `"${shownName(name)}" is not a provider id${secrets.length ? ' or a secret named in tools.yaml' : ''}` +
          meantThen(
            guessName(name, [...names.providers, ...secrets], 'value', ''),
            `providers: ${names.providers.join(', ')}` +
              (secrets.length ? `; tools.yaml secrets: ${secrets.join(', ')}` : ''),
          ),
      );
    }
  }
  const keychain = reportingStore(io.secrets());
  // A workspace secret lives in that workspace's namespace; a provider key in its own entry.
  const secretStore =
    names.workspace &&
    names.scope &&
    new names.scope.WorkspaceSecretStore(keychain, names.workspace.root, names.secrets);
  const target = (given: string) => {
    const scoped = names.providers.includes(given) ? undefined : secretFor(given, names);
    return scoped !== undefined && secretStore
      ? { store: secretStore, name: scoped }
      : { store: keychain, name: given };
  };
  switch (action) {
    case 'set': {
      const entry = target(name!);
      const secret = await readSecret(io, entry.name);
      if (!secret) throw new UsageError('no key given on stdin');
      const existed = await entry.store.has(entry.name);
      await entry.store.set(entry.name, secret);
      print.out(`${existed ? 'Replaced' : 'Stored'} the key for ${entry.name} in the OS keychain.`);
      return EXIT.ok;
    }
    case 'delete': {
      const entry = target(name!);
      const deleted = await entry.store.delete(entry.name);
      print.out(deleted ? `Deleted the key for ${entry.name}.` : `No key for ${entry.name} was stored.`);
      return EXIT.ok;
    }
    default: {
      const rows: string[] = [];
      for (const [id, preset] of Object.entries(PROVIDER_PRESETS)) {
        const set = await keychain.has(id);
        const env =
          preset.keyEnvVar && io.env[preset.keyEnvVar] ? ` (${preset.keyEnvVar} is also set in the environment)` : '';
        const state = set ? 'set in the OS keychain' : preset.needsKey ? 'not set' : 'not set (not needed)';
        rows.push(`${id.padEnd(18)} ${state}${env}`);
      }
      for (const [secret, use] of names.secrets) {
        const state = await secretStore!.has(secret).then(
          (set) => (set ? 'set in the OS keychain' : 'not set'),
          (error: unknown) => {
            if (error instanceof CommandError) return `cannot be read: ${error.message}`;
            throw error;
          },
        );
        rows.push(`${secret.padEnd(18)} ${state} (used by ${use.places.join(', ')})`);
      }
      print.out(rows.join('\n'));
      return EXIT.ok;
    }
  }
}
