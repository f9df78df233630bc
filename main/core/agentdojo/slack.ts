/**
 * AgentDojo's slack suite as a test environment (`agentdojo-slack`): a Slack workspace (users,
 * channels, inboxes) and a small web; 11 tools; 21 user tasks and 5 injection tasks, as upstream's
 * benchmark version v1.2.1 has them. Where each piece comes from: examples/agentdojo/PROVENANCE.md.
 * Why each tool has its trust and approval: docs/agentdojo.md.
 */
import type { JsonObject } from '../../../common/json.js';
import { registerTestEnvironment } from '../testing/test-environment.js';
import environment from '../../../examples/agentdojo/slack/environment.json' with { type: 'json' };
import slots from '../../../examples/agentdojo/slack/injection-slots.json' with { type: 'json' };
import { suiteEnvironment, type Suite } from './suite.js';
import { slackTools, type SlackState } from './slack-tools.js';
import { slackUserTasks, slackInjectionTasks } from './slack-tasks.js';

export const slackSuite: Suite<SlackState> = {
  name: 'agentdojo-slack',
  description:
    "AgentDojo's slack suite (Debenedetti et al., 2024; benchmark v1.2.1): a Slack workspace and a small web.",
  environment: environment as JsonObject,
  slots,
  tools: slackTools,
  userTasks: slackUserTasks,
  injectionTasks: slackInjectionTasks,
  userName: 'Emma Johnson',
};

export const slackEnvironment = suiteEnvironment(slackSuite);
registerTestEnvironment(slackEnvironment);
