import { describe, expect, it } from 'vitest';
import { UnsafeWorkspaceError } from '../../../main/core/catalog/workspace-root.js';
import { SecretStoreUnavailableError } from '../../../main/core/credentials/secret-store.js';
import { ProviderError } from '../../../main/core/providers/model-provider.js';
import { RunSetupError } from '../../../main/core/run/prepare-run.js';
import { ForkError, RunLimitError } from '../../../main/core/run/run-errors.js';
import { TranscriptGoneError } from '../../../main/core/transcript/transcript-pages.js';
import { TranscriptError } from '../../../main/core/transcript/transcript-reader.js';
import { ConfigDirError } from '../../../main/core/trust/config-dir.js';
import { ConfigFileError } from '../../../main/core/trust/config-file.js';
import { CommandError, InterruptedError, UsageError } from '../../../main/cli/cli-errors.js';
import { cliErrorKind, EXIT, EXIT_FOR_KIND } from '../../../main/cli/exit-codes.js';
import { UntrustedError } from '../../../main/cli/trust-command.js';

describe('EXIT_FOR_KIND', () => {
  it.each([
    ['UsageError', new UsageError('x'), 'usage', EXIT.usage],
    ['ForkError', new ForkError('fork-past-end', 'x'), 'fork', EXIT.usage],
    ['UntrustedError', new UntrustedError('x'), 'untrusted', EXIT.untrusted],
    ['CommandError', new CommandError('x'), 'command-failed', EXIT.scriptError],
    ['InterruptedError', new InterruptedError(), 'interrupted', EXIT.stopped],
    ['RunSetupError', new RunSetupError('x'), 'run-setup', EXIT.usage],
    ['TranscriptError', new TranscriptError('x'), 'transcript', EXIT.usage],
    ['TranscriptGoneError', new TranscriptGoneError('x'), 'transcript', EXIT.usage],
    ['SecretStoreUnavailableError', new SecretStoreUnavailableError('x'), 'secret-store-unavailable', EXIT.usage],
    ['UnsafeWorkspaceError', new UnsafeWorkspaceError('/w', 'x'), 'unsafe-workspace', EXIT.usage],
    ['ConfigDirError', new ConfigDirError('x'), 'config', EXIT.usage],
    ['ConfigFileError', new ConfigFileError('x'), 'config', EXIT.usage],
  ] as const)('maps a %s by its kind to its exit code', (_name, error, kind, exit) => {
    expect(cliErrorKind(error)).toBe(kind);
    expect(EXIT_FOR_KIND[kind].exit).toBe(exit);
  });

  it('leaves every other error to be reported as an internal error', () => {
    for (const error of [
      new Error('x'),
      new ProviderError('auth', 'x'),
      new RunLimitError('budget', 'x'),
      Object.assign(new Error('x'), { kind: 'toString' }),
      Object.assign(new Error('x'), { kind: '__proto__' }),
      { kind: 'usage', message: 'not an Error' },
      'usage',
      undefined,
    ])
      expect(cliErrorKind(error)).toBeUndefined();
  });
});
