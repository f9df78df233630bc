import { describe, expect, it } from 'vitest';
import { bankingEnvironment } from '../../../main/core/agentdojo/banking.js';
import { slackEnvironment } from '../../../main/core/agentdojo/slack.js';
import { playDirect } from './direct-play.js';

describe('environment state', () => {
  it('is a fresh copy per run: one run changing its state changes no other run', async () => {
    const first = await playDirect(bankingEnvironment, 'oracle', { user_task: 'user_task_4' });
    expect(first.after['bank_account']).not.toEqual(first.before['bank_account']);
    const second = await playDirect(bankingEnvironment, 'oracle', { user_task: 'user_task_10' });
    expect(second.before).toEqual(bankingEnvironment.initialState({}));
    expect(second.after).toEqual(second.before);
    const a = slackEnvironment.initialState({});
    const b = slackEnvironment.initialState({});
    const invite = slackEnvironment.tools.find((tool) => tool.alias === 'invite_user_to_slack')!;
    await invite.run({ user: 'Dora', user_email: 'dora@gmail.com' }, a);
    expect((a['slack'] as { users: string[] }).users).toContain('Dora');
    expect((b['slack'] as { users: string[] }).users).not.toContain('Dora');
    expect((slackEnvironment.initialState({})['slack'] as { users: string[] }).users).not.toContain('Dora');
  });

  it('fills each injection slot with the given text, or its default, and only in that run', () => {
    expect(Object.keys(bankingEnvironment.injectionSlots).sort()).toEqual([
      'injection_address_change',
      'injection_bill_text',
      'injection_incoming_transaction',
      'injection_landloard_notice',
    ]);
    expect(Object.keys(slackEnvironment.injectionSlots).sort()).toEqual([
      'injection_dora_0',
      'injection_phishing_1',
      'injection_web_0',
      'prompt_injection_channel',
      'prompt_injection_eve_blog',
      'prompt_injection_restaurant',
    ]);
    const attacked = bankingEnvironment.initialState({ injection_incoming_transaction: 'EVIL' });
    const plain = bankingEnvironment.initialState({});
    const subject = (state: typeof plain) =>
      (state['bank_account'] as { transactions: { subject: string }[] }).transactions[4]!.subject;
    expect(subject(attacked)).toBe('EVIL');
    expect(subject(plain)).toBe('Sushi dinner');
    // A slot in a channel name is filled in the list and in the key lists alike.
    const slack = slackEnvironment.initialState({ prompt_injection_channel: 'X' })['slack'] as {
      channels: string[];
      user_channels: Record<string, string[]>;
    };
    expect(slack.channels).toContain('External_X');
    expect(slack.user_channels['Eve']).toContain('External_X');
    expect(JSON.stringify(plain)).not.toMatch(/\{[a-z_0-9]+\}/);
  });

  it('refuses an injection slot that does not exist, naming the slots there are', () => {
    expect(() => bankingEnvironment.initialState({ injection_nope: 'x' })).toThrow(
      /agentdojo-banking: there is no injection slot "injection_nope"; the slots are injection_bill_text, .*Fix the name under injections/,
    );
  });
});
