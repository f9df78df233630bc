import type { SecretSource } from './http-runner.js';
import type { ToolSpec } from './tool-spec.js';

/**
 * Names of passed-through variables whose values are treated as secrets (redacted from the run):
 * `OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`, `SESSION_COOKIE`...
 */
export const SECRET_VARIABLE_NAME = /KEY|TOKEN|SECRET|PASS|AUTH|CRED|PRIVATE|SESSION|COOKIE|SIGNATURE/i;

/**
 * Appends to `sink` (once each) every secret the catalog's tools will use, for the run to redact: the keychain values of http
 * tools' `{ secret: NAME }` headers, and the values of secret-looking variables command tools pass
 * through (see {@link SECRET_VARIABLE_NAME}). A keychain that cannot be read adds nothing here;
 * the call itself reports it, and {@link recordingSecretSource} still records what it reads.
 */
export async function collectToolSecrets(
  tools: readonly ToolSpec[],
  source: SecretSource,
  sink: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const names = new Set<string>();
  const values: string[] = [];
  for (const tool of tools) {
    const settings = tool.settings;
    if (settings.kind === 'http') {
      for (const value of Object.values(settings.headers ?? {})) if (typeof value !== 'string') names.add(value.secret);
    } else if (settings.kind === 'command') {
      for (const name of settings.env ?? []) {
        const value = env[name];
        if (value !== undefined && SECRET_VARIABLE_NAME.test(name)) values.push(value);
      }
    }
  }
  for (const name of names) {
    const value = await source.get(name).catch(() => undefined);
    if (value !== undefined) values.push(value);
  }
  for (const value of values) if (!sink.includes(value)) sink.push(value);
}

/** `source`, also appending every value it returns to `sink` (the run's list of secrets). */
export function recordingSecretSource(source: SecretSource, sink: string[]): SecretSource {
  return {
    async get(name) {
      const value = await source.get(name);
      if (value !== undefined && !sink.includes(value)) sink.push(value);
      return value;
    },
  };
}
