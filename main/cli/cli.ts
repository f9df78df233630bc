/**
 * The `promptforge` CLI's entry point: dispatches a command line to its command and turns the
 * errors it throws into a message and an exit code.
 */
import { readFileSync } from 'node:fs';
import { unknownWord } from './cli-args.js';
import { OutputClosed, stopText, untilInterrupted, USAGE_HINT, UsageError } from './cli-errors.js';
import { defaultIo, forLauncher, printer, watchOutput, type CliIo, type Printer } from './cli-io.js';
import { cliErrorKind, EXIT, EXIT_FOR_KIND } from './exit-codes.js';
import { helpFor, wantsHelp } from './help.js';
import { KEY_ACTIONS, keysCommand } from './keys-command.js';
import { mcpCommand } from './mcp-command.js';
import { runCommand } from './run-command.js';
import { testCommand } from './test-command.js';
import { trustCommand } from './trust-command.js';

export { defaultIo, type CliIo } from './cli-io.js';
export { EXIT } from './exit-codes.js';

function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Runs the CLI with `argv` (without node and the script); resolves with the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const print = printer(io);
  // Subscribed first, so a Ctrl-C at any moment is this CLI's to handle (never Node's default).
  const interrupt = new AbortController();
  const unsubscribe = io.onInterrupt(() => interrupt.abort());
  // A closed stdout or stderr (`| head -1`) stops the command as Ctrl-C does, with its own reason.
  watchOutput(io, (stream) => interrupt.abort(new OutputClosed(stream)));
  try {
    const [command, ...rest] = argv;
    switch (command) {
      case 'run':
        if (wantsHelp(rest)) return help(print, ['run']);
        return await runCommand(rest, io, print, interrupt.signal);
      case 'test':
        if (wantsHelp(rest)) return help(print, ['test']);
        return await testCommand(rest, io, print, interrupt.signal);
      case 'keys':
        if (wantsHelp(rest)) return help(print, ['keys', ...rest.filter((arg) => KEY_ACTIONS.has(arg)).slice(0, 1)]);
        return await untilInterrupted(keysCommand(rest, io, print), interrupt.signal);
      case 'mcp':
        if (wantsHelp(rest))
          return help(print, ['mcp', ...rest.filter((arg) => ['list', 'login', 'logout'].includes(arg)).slice(0, 1)]);
        return await mcpCommand(rest, io, print, interrupt.signal);
      case 'rules':
        if (wantsHelp(rest)) return help(print, ['rules']);
        return await untilInterrupted(
          import('./rules-command.js').then(({ rulesCommand }) => rulesCommand(rest, io, print)),
          interrupt.signal,
        );
      case 'trust':
        if (wantsHelp(rest)) return help(print, ['trust']);
        return await untilInterrupted(trustCommand(rest, io, print), interrupt.signal);
      case 'help':
        return help(print, rest);
      case '--help':
      case '-h':
        return help(print, []);
      case '--version':
      case '-v':
        print.out(packageVersion());
        return EXIT.ok;
      case undefined:
        print.err(helpFor([])!);
        return EXIT.usage;
      default:
        throw new UsageError(unknownWord('command', command, COMMANDS, `commands: ${COMMANDS.join(', ')}`));
    }
  } catch (error) {
    const kind = cliErrorKind(error);
    if (kind !== undefined) {
      const { exit, says } = EXIT_FOR_KIND[kind];
      const message = (error as Error).message;
      switch (says) {
        case 'usage':
          print.say(`${message}\n${USAGE_HINT}`);
          break;
        case 'launcher':
          print.say(forLauncher(message, io.env));
          break;
        case 'message':
          print.say(message);
          break;
        case 'stopped':
          print.say(stopText(interrupt.signal));
          io.stdin.destroy();
          break;
      }
      return exit;
    }
    print.say(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.scriptError;
  } finally {
    unsubscribe();
  }
}

function help(print: Printer, topic: string[]): number {
  const text = helpFor(topic);
  if (text === undefined)
    throw new UsageError(
      `no help for "${topic.join(' ')}"; commands: run, test, rules, trust, keys set, keys status, keys delete, mcp list, mcp login, mcp logout`,
    );
  print.out(text);
  return EXIT.ok;
}

const COMMANDS = ['run', 'test', 'rules', 'trust', 'keys', 'mcp', 'help'];
