// The slack suite's state and its tools, acting on a per-run copy of the environment.
import type { JsonObject } from '../../../common/json.js';
import { ToolFailure } from '../tools/tool-spec.js';
import { type EnvironmentTool } from '../testing/test-environment.js';
import { objectSchema, yamlText } from './suite.js';

export interface Message {
  sender: string;
  recipient: string;
  body: string;
}

export interface SlackState {
  slack: {
    users: string[];
    channels: string[];
    user_channels: Record<string, string[]>;
    user_inbox: Record<string, Message[]>;
    channel_inbox: Record<string, Message[]>;
  };
  web: { web_content: Record<string, string>; web_requests: string[] };
}

function slackOf(state: JsonObject): SlackState['slack'] {
  return (state as unknown as SlackState).slack;
}
function webOf(state: JsonObject): SlackState['web'] {
  return (state as unknown as SlackState).web;
}

const text = (description: string): JsonObject => ({ type: 'string', description });

/** Upstream's errors come back as `ValueError: ...`; so do these. */
function fail(message: string): never {
  throw new ToolFailure(`ValueError: ${message}`);
}

/** The URL without its scheme, as upstream stores and looks pages up. */
function standardizeUrl(url: string): string {
  if (url.startsWith('https://')) url = url.slice(8);
  if (url.startsWith('http://')) url = url.slice(7);
  return url;
}

/** What upstream's tools that return nothing print. */
const NONE = 'None';

export const slackTools: EnvironmentTool[] = [
  {
    alias: 'get_channels',
    description: 'Lists the names of the channels in the Slack workspace.',
    parameters: objectSchema({}, []),
    trust: 'untrusted',
    approval: 'auto',
    run: (_args, state) => yamlText(slackOf(state).channels),
  },
  {
    alias: 'add_user_to_channel',
    description: 'Makes a workspace member a member of a channel too.',
    parameters: objectSchema({ user: text('The member to add'), channel: text('The channel to add them to') }, [
      'user',
      'channel',
    ]),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const slack = slackOf(state);
      const user = args['user'] as string;
      const channel = args['channel'] as string;
      if (!slack.users.includes(user)) fail(`User ${user} not found in the users list`);
      if (!slack.channels.includes(channel)) fail(`Channel ${channel} not found in the channels list`);
      (slack.user_channels[user] ??= []).push(channel);
      return NONE;
    },
  },
  {
    alias: 'read_channel_messages',
    description: 'Returns the messages posted in a channel.',
    parameters: objectSchema({ channel: text('The channel to read') }, ['channel']),
    trust: 'untrusted',
    approval: 'auto',
    run: (args, state) => {
      const slack = slackOf(state);
      const channel = args['channel'] as string;
      if (!slack.channels.includes(channel)) fail('Channel does not exist!');
      return yamlText((slack.channel_inbox[channel] ?? []) as unknown as JsonObject[]);
    },
  },
  {
    alias: 'read_inbox',
    description: 'Returns the direct messages a member has received.',
    parameters: objectSchema({ user: text('The member whose inbox to read') }, ['user']),
    trust: 'untrusted',
    approval: 'auto',
    run: (args, state) => {
      const slack = slackOf(state);
      const user = args['user'] as string;
      if (!slack.users.includes(user)) fail(`User ${user} not found in the users list`);
      return yamlText((slack.user_inbox[user] ?? []) as unknown as JsonObject[]);
    },
  },
  {
    alias: 'send_direct_message',
    description: 'Sends a direct message, signed "bot", to a workspace member.',
    parameters: objectSchema({ recipient: text('The member to write to'), body: text('The message') }, [
      'recipient',
      'body',
    ]),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const slack = slackOf(state);
      const recipient = args['recipient'] as string;
      if (!slack.users.includes(recipient)) fail(`Recipient ${recipient} not found in the users list`);
      (slack.user_inbox[recipient] ??= []).push({ sender: 'bot', recipient, body: args['body'] as string });
      return NONE;
    },
  },
  {
    alias: 'send_channel_message',
    description: 'Posts a message, signed "bot", in a channel.',
    parameters: objectSchema({ channel: text('The channel to post in'), body: text('The message') }, [
      'channel',
      'body',
    ]),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const slack = slackOf(state);
      const channel = args['channel'] as string;
      if (!slack.channels.includes(channel)) fail(`Channel ${channel} not found in the channels list`);
      (slack.channel_inbox[channel] ??= []).push({ sender: 'bot', recipient: channel, body: args['body'] as string });
      return NONE;
    },
  },
  {
    alias: 'get_users_in_channel',
    description: 'Lists the members of a channel.',
    parameters: objectSchema({ channel: text('The channel') }, ['channel']),
    trust: 'trusted',
    approval: 'auto',
    run: (args, state) => {
      const slack = slackOf(state);
      const channel = args['channel'] as string;
      if (!slack.channels.includes(channel)) fail(`Channel ${channel} not found in the channels list`);
      return yamlText(
        Object.entries(slack.user_channels)
          .filter(([, channels]) => channels.includes(channel))
          .map(([user]) => user),
      );
    },
  },
  {
    alias: 'invite_user_to_slack',
    description: 'Invites someone new to the Slack workspace under a user name, by e-mail.',
    parameters: objectSchema({ user: text('The new user name'), user_email: text('Where to send the invitation') }, [
      'user',
      'user_email',
    ]),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const slack = slackOf(state);
      const user = args['user'] as string;
      if (slack.users.includes(user)) fail(`User ${user} already in the users list`);
      slack.users.push(user);
      slack.user_inbox[user] = [];
      slack.user_channels[user] = [];
      return NONE;
    },
  },
  {
    alias: 'remove_user_from_slack',
    description: 'Removes a member from the Slack workspace.',
    parameters: objectSchema({ user: text('The member to remove') }, ['user']),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const slack = slackOf(state);
      const user = args['user'] as string;
      if (!slack.users.includes(user)) fail(`User ${user} not found in the users list`);
      slack.users.splice(slack.users.indexOf(user), 1);
      delete slack.user_inbox[user];
      delete slack.user_channels[user];
      return NONE;
    },
  },
  {
    alias: 'get_webpage',
    description: 'Fetches a web page and returns its text ("404 Not Found" when there is none).',
    parameters: objectSchema({ url: text('The page address') }, ['url']),
    trust: 'untrusted',
    approval: 'auto',
    run: (args, state) => {
      const web = webOf(state);
      const url = standardizeUrl(args['url'] as string);
      web.web_requests.push(url);
      return web.web_content[url] ?? '404 Not Found';
    },
  },
  {
    alias: 'post_webpage',
    description: 'Publishes text as the web page at an address.',
    parameters: objectSchema({ url: text('The page address'), content: text('The text to publish') }, [
      'url',
      'content',
    ]),
    trust: 'trusted',
    approval: 'ask',
    run: (args, state) => {
      const web = webOf(state);
      const url = standardizeUrl(args['url'] as string);
      web.web_requests.push(url);
      web.web_content[url] = args['content'] as string;
      return NONE;
    },
  },
];
