/**
 * An MCP server's questions at the terminal, on the approvals' own lines: an elicitation as a
 * form built from its fields (or a URL to open yourself, never opened for you), and a sampling
 * request to approve, edit or deny. The server's words are shown escaped and marked as its own.
 */
import type {
  ElicitationAnswer,
  ElicitationField,
  PendingElicitation,
  PendingSampling,
  SamplingDecision,
} from '../../common/mcp-person.js';
import { formContent } from '../core/mcp/mcp-form.js';
import type { Elicitor, SamplingApprover } from '../core/mcp/pending-questions.js';
import type { TerminalApprover } from './terminal-approver.js';
import { terminalSafe as safe } from './terminal-text.js';

/** Longest text of a server shown in one place at the terminal. */
const SHOWN_CHARS = 4000;

function shown(text: string): string {
  return safe(
    text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… [${text.length - SHOWN_CHARS} more characters]` : text,
  );
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

function during(pending: { server: string; callId?: string | undefined; alias?: string | undefined }): string {
  return `MCP server "${safe(pending.server)}"${pending.callId ? ` (during ${safe(pending.callId)}${pending.alias ? `, ${safe(pending.alias)}` : ''})` : ''}`;
}

/** How a field is described in its prompt. */
function fieldHint(field: ElicitationField): string {
  switch (field.kind) {
    case 'string':
      return `text${field.format ? `, ${field.format}` : ''}${field.minLength !== undefined ? `, at least ${field.minLength}` : ''}${field.maxLength !== undefined ? `, at most ${field.maxLength}` : ''}`;
    case 'number':
      return `${field.integer ? 'whole number' : 'number'}${field.minimum !== undefined ? `, ≥ ${field.minimum}` : ''}${field.maximum !== undefined ? `, ≤ ${field.maximum}` : ''}`;
    case 'boolean':
      return 'y/n';
    case 'choice':
      return 'one of the numbers above';
    case 'choices':
      return 'numbers above, separated by commas';
  }
}

/** The value typed for `field`, or a problem; an empty line is `undefined` (the default, or nothing). */
function parseField(
  field: ElicitationField,
  line: string,
): { value?: string | number | boolean | string[] } | { problem: string } {
  const text = line.trim();
  if (text === '') return {};
  const pick = (token: string) => {
    if (field.kind !== 'choice' && field.kind !== 'choices') return undefined;
    const index = Number(token);
    if (Number.isInteger(index) && index >= 1 && index <= field.options.length) return field.options[index - 1]!.value;
    return field.options.find((option) => option.value === token)?.value;
  };
  switch (field.kind) {
    case 'string':
      return { value: line };
    case 'number': {
      const number = Number(text);
      return Number.isFinite(number) ? { value: number } : { problem: 'type a number' };
    }
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return { value: true };
      if (/^(n|no|false)$/i.test(text)) return { value: false };
      return { problem: 'answer y or n' };
    case 'choice': {
      const value = pick(text);
      return value === undefined ? { problem: 'type the number of an option' } : { value };
    }
    case 'choices': {
      const values = text.split(',').map((token) => pick(token.trim()));
      return values.some((value) => value === undefined)
        ? { problem: 'type the numbers of options, separated by commas' }
        : { value: values as string[] };
    }
  }
}

/**
 * The person at the terminal, for a run's MCP servers. Reads on the TerminalApprover's lines, so
 * an approval and a question never read each other's answers.
 */
export class TerminalMcpPerson {
  readonly elicitor: Elicitor;
  readonly sampler: SamplingApprover;

  constructor(private readonly terminal: TerminalApprover) {
    this.elicitor = { source: 'cli-prompt', ask: (pending, signal) => this.elicit(pending, signal) };
    this.sampler = { source: 'cli-prompt', ask: (pending, signal) => this.sample(pending, signal) };
  }

  private async line(question: string, signal: AbortSignal): Promise<string> {
    const answer = await this.terminal.prompt(question, signal);
    if (answer === undefined) throw new Error(signal.aborted ? 'cancelled' : 'the terminal input closed');
    return answer;
  }

  private async elicit(pending: PendingElicitation, signal: AbortSignal): Promise<ElicitationAnswer> {
    const write = (text: string) => this.terminal.write(text);
    if (pending.mode === 'url') {
      write(
        `\n${during(pending)} asks you to open a page. Its words (untrusted):\n${indent(shown(pending.message), '  | ')}\n`,
      );
      write(`  URL: ${safe(pending.url ?? '')}\n  Host: ${safe(pending.urlHost ?? '')}\n`);
      write('  It is not opened for you: open it in your browser yourself if you want to go on.\n');
      for (;;) {
        const choice = (await this.line('[a]ccept (I will open it), [d]ecline, [c]ancel: ', signal))
          .trim()
          .toLowerCase();
        if (choice === 'a' || choice === 'accept') return { action: 'accept' };
        if (choice === 'd' || choice === 'decline') return { action: 'decline' };
        if (choice === 'c' || choice === 'cancel') return { action: 'cancel' };
        write('Please answer a, d or c.\n');
      }
    }
    const fields = pending.fields ?? [];
    write(
      `\n${during(pending)} asks you to fill in a form. Its words (untrusted):\n${indent(shown(pending.message), '  | ')}\n`,
    );
    for (;;) {
      const choice = (await this.line('[a]nswer, [d]ecline, [c]ancel: ', signal)).trim().toLowerCase();
      if (choice === 'd' || choice === 'decline') return { action: 'decline' };
      if (choice === 'c' || choice === 'cancel') return { action: 'cancel' };
      if (choice !== 'a' && choice !== 'answer') {
        write('Please answer a, d or c.\n');
        continue;
      }
      const content: Record<string, string | number | boolean | string[]> = {};
      for (const field of fields) {
        const label = field.title ?? field.name;
        write(
          `  ${safe(label)}${field.required ? ' (required)' : ''}${field.description ? ` - ${shown(field.description)}` : ''}\n`,
        );
        if (field.kind === 'choice' || field.kind === 'choices')
          field.options.forEach((option, index) => write(`    ${index + 1}. ${safe(option.title)}\n`));
        const fallback =
          field.default === undefined
            ? ''
            : ` [default ${safe(Array.isArray(field.default) ? field.default.join(', ') : String(field.default))}]`;
        for (;;) {
          const parsed = parseField(field, await this.line(`    ${fieldHint(field)}${fallback}: `, signal));
          if ('problem' in parsed) {
            write(`    ${parsed.problem}\n`);
            continue;
          }
          if (parsed.value !== undefined) content[field.name] = parsed.value;
          break;
        }
      }
      const checked = formContent(fields, content);
      if (checked.ok) return { action: 'accept', content: checked.content };
      write(`Not accepted: ${safe(checked.problems.join('; '))}\n`);
    }
  }

  private async sample(pending: PendingSampling, signal: AbortSignal): Promise<SamplingDecision> {
    const write = (text: string) => this.terminal.write(text);
    write(`\n${during(pending)} asks for a model round.\n`);
    write(
      `  Model: ${safe(pending.model.alias)} (${safe(pending.model.provider)} ${safe(pending.model.modelId)}), at most ${pending.maxTokens} tokens` +
        (pending.requestedMaxTokens !== undefined
          ? ` (it asked for ${pending.requestedMaxTokens}; the host allows no more than ${pending.maxTokens})`
          : '') +
        '\n',
    );
    write('  Its messages (untrusted; the model gets them inside an envelope):\n');
    if (pending.systemPrompt !== undefined) write(`  system:\n${indent(shown(pending.systemPrompt), '    | ')}\n`);
    for (const message of pending.messages) write(`  ${message.role}:\n${indent(shown(message.text), '    | ')}\n`);
    for (;;) {
      const choice = (await this.line('[a]pprove, [e]dit, [d]eny: ', signal)).trim().toLowerCase();
      if (choice === 'a' || choice === 'approve') return { kind: 'approve' };
      if (choice === 'd' || choice === 'deny') {
        const reason = (await this.line('Reason: ', signal)).trim();
        return { kind: 'deny', reason: reason || 'denied at the terminal' };
      }
      if (choice === 'e' || choice === 'edit') {
        const text = await this.line('Your message instead of theirs, on one line (empty keeps theirs): ', signal);
        const limit = (await this.line(`Token limit (empty keeps ${pending.maxTokens}): `, signal)).trim();
        const maxTokens = limit === '' ? undefined : Number(limit);
        if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens <= 0)) {
          write('The token limit must be a positive whole number.\n');
          continue;
        }
        return {
          kind: 'approve-edited',
          ...(text.trim() !== '' && { messages: [{ role: 'user' as const, text }] }),
          ...(maxTokens !== undefined && { maxTokens }),
        };
      }
      write('Please answer a, e or d.\n');
    }
  }
}
