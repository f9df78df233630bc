// The banking suite's state and its tools, acting on a per-run copy of the environment.
import type { JsonObject } from '../../../common/json.js';
import { ToolFailure } from '../tools/tool-spec.js';
import type { EnvironmentTool } from '../testing/test-environment.js';
import { objectSchema, pyFloat, yamlText } from './suite.js';

export interface Transaction {
  id: number;
  sender: string;
  recipient: string;
  amount: number;
  subject: string;
  date: string;
  recurring: boolean;
}

export interface BankingState {
  bank_account: { balance: number; iban: string; transactions: Transaction[]; scheduled_transactions: Transaction[] };
  filesystem: { files: Record<string, string> };
  user_account: { first_name: string; last_name: string; street: string; city: string; password: string };
}

function banking(state: JsonObject): BankingState {
  return state as unknown as BankingState;
}

function nextId(account: BankingState['bank_account']): number {
  return Math.max(0, ...account.transactions.map((t) => t.id), ...account.scheduled_transactions.map((t) => t.id)) + 1;
}

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;

function newTransaction(state: BankingState, args: JsonObject, recurring: boolean): Transaction {
  return {
    id: nextId(state.bank_account),
    sender: state.bank_account.iban,
    recipient: args['recipient'] as string,
    amount: args['amount'] as number,
    subject: args['subject'] as string,
    date: args['date'] as string,
    recurring,
  };
}

export const bankingTools: EnvironmentTool[] = [
  {
    alias: 'get_iban',
    description: "Returns the IBAN of the user's own bank account.",
    parameters: objectSchema({}, []),
    trust: 'trusted',
    approval: 'auto',
    run: (_args, state) => banking(state).bank_account.iban,
  },
  {
    alias: 'send_money',
    description: "Transfers money from the user's account to a recipient now.",
    parameters: objectSchema(
      {
        recipient: { ...str, description: "The recipient's IBAN" },
        amount: { ...num, description: 'How much to send' },
        subject: { ...str, description: 'The transfer subject the recipient sees' },
        date: { ...str, description: 'The date of the transfer (YYYY-MM-DD)' },
      },
      ['recipient', 'amount', 'subject', 'date'],
    ),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const bank = banking(state);
      const transaction = newTransaction(bank, args, false);
      bank.bank_account.transactions.push(transaction);
      return yamlText({ message: `Transaction to ${transaction.recipient} for ${pyFloat(transaction.amount)} sent.` });
    },
  },
  {
    alias: 'schedule_transaction',
    description: "Sets up a future transfer (once, or repeating) from the user's account.",
    parameters: objectSchema(
      {
        recipient: { ...str, description: "The recipient's IBAN" },
        amount: { ...num, description: 'How much to send' },
        subject: { ...str, description: 'The transfer subject the recipient sees' },
        date: { ...str, description: 'The date of the next transfer (YYYY-MM-DD)' },
        recurring: { type: 'boolean', description: 'Whether the transfer repeats' },
      },
      ['recipient', 'amount', 'subject', 'date', 'recurring'],
    ),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const bank = banking(state);
      const transaction = newTransaction(bank, args, args['recurring'] as boolean);
      bank.bank_account.scheduled_transactions.push(transaction);
      return yamlText({
        message: `Transaction to ${transaction.recipient} for ${pyFloat(transaction.amount)} scheduled.`,
      });
    },
  },
  {
    alias: 'update_scheduled_transaction',
    description: 'Changes a scheduled transfer, found by its id; only the fields given change.',
    parameters: objectSchema(
      {
        id: { type: 'integer', description: 'The id of the scheduled transfer' },
        recipient: { ...str, description: "A new recipient's IBAN" },
        amount: { ...num, description: 'A new amount' },
        subject: { ...str, description: 'A new subject' },
        date: { ...str, description: 'A new date for the next transfer (YYYY-MM-DD)' },
        recurring: { type: 'boolean', description: 'Whether the transfer repeats' },
      },
      ['id'],
    ),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const id = args['id'] as number;
      const transaction = banking(state).bank_account.scheduled_transactions.find((t) => t.id === id);
      if (!transaction) throw new ToolFailure(`ValueError: Transaction with ID ${id} not found.`);
      // As upstream: a field changes only when given a truthy value (an amount of 0 or recurring: false is ignored).
      if (args['recipient']) transaction.recipient = args['recipient'] as string;
      if (args['amount']) transaction.amount = args['amount'] as number;
      if (args['subject']) transaction.subject = args['subject'] as string;
      if (args['date']) transaction.date = args['date'] as string;
      if (args['recurring']) transaction.recurring = args['recurring'] as boolean;
      return yamlText({ message: `Transaction with ID ${id} updated.` });
    },
  },
  {
    alias: 'get_balance',
    description: "Returns the balance of the user's account.",
    parameters: objectSchema({}, []),
    trust: 'trusted',
    approval: 'auto',
    run: (_args, state) => pyFloat(banking(state).bank_account.balance),
  },
  {
    alias: 'get_most_recent_transactions',
    description: "Lists the account's latest n transactions (sent and received), oldest first.",
    parameters: objectSchema({ n: { type: 'integer', description: 'How many transactions (default 100)' } }, []),
    trust: 'untrusted',
    approval: 'auto',
    run: (args, state) => {
      const n = (args['n'] as number | undefined) ?? 100;
      const all = banking(state).bank_account.transactions;
      // Python's all[-n:]: the last n, all of them when n is 0 or more than there are.
      const recent = n > 0 ? all.slice(-n) : n === 0 ? all : all.slice(-n);
      return yamlText(recent as unknown as JsonObject[]);
    },
  },
  {
    alias: 'get_scheduled_transactions',
    description: "Lists the account's scheduled (future and standing) transfers.",
    parameters: objectSchema({}, []),
    trust: 'trusted',
    approval: 'auto',
    run: (_args, state) => yamlText(banking(state).bank_account.scheduled_transactions as unknown as JsonObject[]),
  },
  {
    alias: 'read_file',
    description: "Returns the text of one of the user's files (empty when there is no such file).",
    parameters: objectSchema({ file_path: { ...str, description: 'The name of the file' } }, ['file_path']),
    trust: 'untrusted',
    approval: 'auto',
    run: (args, state) => banking(state).filesystem.files[args['file_path'] as string] ?? '',
  },
  {
    alias: 'get_user_info',
    description: "Returns the user's name and address.",
    parameters: objectSchema({}, []),
    trust: 'trusted',
    approval: 'auto',
    run: (_args, state) => {
      const { first_name, last_name, street, city } = banking(state).user_account;
      return yamlText({ first_name, last_name, street, city });
    },
  },
  {
    alias: 'update_password',
    description: "Sets a new password for the user's account.",
    parameters: objectSchema({ password: { ...str, description: 'The new password' } }, ['password']),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      banking(state).user_account.password = args['password'] as string;
      return yamlText({ message: 'Password updated.' });
    },
  },
  {
    alias: 'update_user_info',
    description: "Changes the user's name or address; only the fields given change. Returns the result.",
    parameters: objectSchema(
      {
        first_name: { ...str, description: 'A new first name' },
        last_name: { ...str, description: 'A new last name' },
        street: { ...str, description: 'A new street and number' },
        city: { ...str, description: 'A new city' },
      },
      [],
    ),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const account = banking(state).user_account;
      for (const field of ['first_name', 'last_name', 'street', 'city'] as const) {
        if (args[field]) account[field] = args[field] as string;
      }
      const { first_name, last_name, street, city } = account;
      return yamlText({ first_name, last_name, street, city });
    },
  },
];
