import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { parseExactJson, type JsonObject, type JsonValue } from '../../common/json.js';
import type { TaintSpan } from '../../common/run-events.js';
import type { Approver, PendingCall, PersonDecision } from '../core/approval/approver.js';
import { terminalSafe as safe } from './terminal-text.js';
import { unescapePointerSegment } from '../../common/json-pointer.js';

/**
 * The CLI's `--approve ask`: prints the call (alias, description, pretty arguments, tainted
 * spans) and reads one choice per line: [a]pprove, [e]dit (then the new arguments as JSON on one
 * line), [d]eny (then a reason), a[l]low for this run. Text from the call is printed with control
 * characters escaped ({@link safe}), so an untrusted argument cannot drive the terminal.
 */
export class TerminalApprover implements Approver {
  readonly source = 'cli-prompt' as const;
  private readonly lines: LineQueue;

  constructor(private readonly io: { input: Readable; output: Writable }) {
    this.lines = new LineQueue(io.input);
  }

  async ask(pending: PendingCall, signal: AbortSignal): Promise<PersonDecision> {
    const { request } = pending;
    const write = (text: string) => this.io.output.write(text);
    write(`\nTool call awaiting approval: ${safe(request.alias)} (${safe(request.callId)})\n`);
    if (request.description) write(`  ${safe(request.description)}\n`);
    if (pending.definitionChange) {
      const { since, summary, details } = pending.definitionChange;
      const heading =
        since === 'allowed'
          ? 'This tool changed since you allowed it'
          : since === 'seen'
            ? 'This tool changed since you last saw it'
            : 'This tool changed while this prompt was open';
      write(`  ! ${heading}: ${safe(summary)}\n`);
      for (const line of details) write(`    - ${safe(line)}\n`);
    }
    // Which rule is part of why it asks: e.g. one that would have applied to a new or changed tool.
    if (pending.rule) {
      write(`  ! Rule: ${safe(pending.rule.text)}\n`);
      for (const line of pending.rule.changes ?? []) write(`    - ${safe(line)}\n`);
    }
    if (pending.sinks?.length) write(`  Sinks (ask on any untrusted text): ${safe(pending.sinks.join(', '))}\n`);
    if (pending.annotations)
      write(`  The server describes the tool as (hints, not a policy): ${safe(JSON.stringify(pending.annotations))}\n`);
    write(`  Arguments:\n${indent(safe(JSON.stringify(request.arguments, null, 2)), '    ')}\n`);
    if (request.taint.length > 0) {
      write(`  ! These arguments repeat untrusted tool output:\n`);
      for (const span of request.taint) write(`    ${describeSpan(request.arguments, span)}\n`);
    }
    if (pending.rejectedEdit) write(`  Your last edit was rejected: ${safe(pending.rejectedEdit)}\n`);
    for (;;) {
      write('[a]pprove, [e]dit, [d]eny, a[l]low for this run: ');
      const choice = (await this.readLine(signal)).trim().toLowerCase();
      switch (choice) {
        case 'a':
        case 'approve':
          return { kind: 'approve' };
        case 'l':
        case 'allow':
          return { kind: 'allow-for-run' };
        case 'd':
        case 'deny': {
          write('Reason: ');
          const reason = (await this.readLine(signal)).trim();
          return { kind: 'deny', reason: reason || 'denied at the terminal' };
        }
        case 'e':
        case 'edit': {
          write('New arguments as JSON on one line: ');
          const text = await this.readLine(signal);
          const exact = parseExactJson(text);
          if (!exact.ok) {
            write(`Not accepted: ${safe(exact.problem)}\n`);
            continue;
          }
          const parsed = exact.value;
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
            write('The arguments must be a JSON object.\n');
            continue;
          }
          const problem = pending.validateEdit(parsed as JsonObject);
          if (problem !== undefined) {
            write(`Rejected: ${safe(problem)}\n`);
            continue;
          }
          return { kind: 'approve-edited', arguments: parsed as JsonObject };
        }
        default:
          write(`Please answer a, e, d or l.\n`);
      }
    }
  }

  /** Stops reading the input (the CLI calls this when the run ends). */
  close(): void {
    this.lines.close();
  }

  /**
   * Asks a yes/no question on the same terminal lines the approvals read (a key origin a model
   * chosen by the script needs mid-run); resolves true only for y or yes.
   */
  async confirm(question: string, signal: AbortSignal): Promise<boolean> {
    this.io.output.write(`${safe(question)} [y]es, [N]o: `);
    const answer = await this.lines.next(signal);
    return answer !== undefined && ['y', 'yes'].includes(answer.trim().toLowerCase());
  }

  /**
   * Writes `question` and reads one line on the approvals' own terminal lines (an MCP server's
   * question, see terminal-mcp-person.ts); undefined when the input closed or `signal` aborted.
   */
  async prompt(question: string, signal: AbortSignal): Promise<string | undefined> {
    this.io.output.write(question);
    return this.lines.next(signal);
  }

  /** Writes text on the approvals' output (the caller makes it terminal-safe). */
  write(text: string): void {
    this.io.output.write(text);
  }

  private async readLine(signal: AbortSignal): Promise<string> {
    const line = await this.lines.next(signal);
    if (line === undefined) throw new Error(signal.aborted ? 'cancelled' : 'the terminal input closed');
    return line;
  }
}

/** Lines from a stream, one waiter at a time; a waiter whose signal aborts gives up its turn. */
class LineQueue {
  private readonly reader: Interface;
  private readonly buffered: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(input: Readable) {
    this.reader = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.reader.on('line', (line) => {
      if (this.waiter) {
        const waiter = this.waiter;
        this.waiter = undefined;
        waiter(line);
      } else this.buffered.push(line);
    });
    this.reader.on('close', () => {
      this.ended = true;
      this.waiter?.(undefined);
      this.waiter = undefined;
    });
  }

  next(signal: AbortSignal): Promise<string | undefined> {
    const line = this.buffered.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended || signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = () => {
        if (this.waiter === settle) this.waiter = undefined;
        resolve(undefined);
      };
      const settle = (value: string | undefined) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      this.waiter = settle;
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  close(): void {
    this.reader.close();
  }
}

function describeSpan(args: JsonObject, span: TaintSpan): string {
  const value = valueAt(args, span.path);
  const text = typeof value === 'string' ? value.slice(span.start, span.end) : '';
  const excerpt = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  const from = span.sourceOutputId === 'envelope' ? 'an envelope tag' : `output of ${span.sourceOutputId}`;
  return `${safe(span.path || '/')} [${span.start}..${span.end}] repeats ${safe(from)}: >>${safe(excerpt)}<<`;
}

function valueAt(root: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === '') return root;
  let node: JsonValue | undefined = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = unescapePointerSegment(raw);
    if (Array.isArray(node)) node = node[Number(key)];
    else if (node !== null && typeof node === 'object') node = node[key];
    else return undefined;
  }
  return node;
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}
