/**
 * What the explorer shows of one MCP server beyond its tools, mounted from the servers list: its
 * sign-in (Streamable HTTP servers), its resources (Read shows the text as untrusted, a binary one
 * described, a huge one refused with its size) and its prompts (Get asks for its arguments with
 * the schema form). Listing starts the server, so each list opens only on the person's click;
 * `mcp-lists-changed` refreshes what is open.
 */
import { useState } from 'react';
import type { McpResourceContent } from '../../../common/mcp-contract.js';
import type { McpPromptEntry, McpResourceEntry } from '../../../common/mcp-person.js';
import { call, describeError, useStudioEvent } from '../shell/studio-api';
import { SchemaForm } from '../tool-trial/SchemaForm';
import { McpLogin } from './McpLogin';
import { promptArguments, promptSchema, sizeText } from './mcp-lists';
import { UntrustedText } from './question-parts';
import './mcp.css';

type Listing<T> =
  | { state: 'closed' }
  | { state: 'loading' }
  | { state: 'shown'; entries: T[]; dropped: number }
  | { state: 'failed'; error: string };

/** A list that loads when opened, and again when `reload` is called while it is open. */
function useListing<T>(load: () => Promise<{ entries: T[]; dropped: number }>) {
  const [listing, setListing] = useState<Listing<T>>({ state: 'closed' });
  const fetch = (): void => {
    setListing((old) => (old.state === 'shown' ? old : { state: 'loading' }));
    load().then(
      (value) => setListing({ state: 'shown', ...value }),
      (failure: unknown) => setListing({ state: 'failed', error: describeError(failure) }),
    );
  };
  const open = listing.state !== 'closed';
  return {
    listing,
    open,
    toggle: () => (open ? setListing({ state: 'closed' }) : fetch()),
    reload: () => {
      if (open) fetch();
    },
  };
}

function Disclosure({
  label,
  open,
  onToggle,
  server,
}: {
  label: string;
  open: boolean;
  onToggle: () => void;
  server: string;
}) {
  return (
    <button
      type="button"
      className="mcp-more small mcp-disclosure"
      aria-expanded={open}
      aria-label={`${label} of MCP server ${server}`}
      onClick={onToggle}
    >
      <span aria-hidden="true">{open ? '▾' : '▸'}</span> {label}
    </button>
  );
}

function ListingNote<T>({ listing, empty }: { listing: Listing<T>; empty: string }) {
  if (listing.state === 'loading') return <p className="small muted">Listing…</p>;
  if (listing.state === 'failed') return <p className="small error-text">{listing.error}</p>;
  if (listing.state !== 'shown') return null;
  if (listing.entries.length === 0) return <p className="small muted">{empty}</p>;
  return listing.dropped > 0 ? (
    <p className="small muted">{listing.dropped} more the server listed are not shown (not valid, or past 1,000).</p>
  ) : null;
}

/** A read resource: each text content as untrusted text, each binary one described. */
function ResourceContents({ contents }: { contents: McpResourceContent[] }) {
  return (
    <>
      {contents.map((content, index) =>
        content.kind === 'text' ? (
          <UntrustedText
            key={index}
            label={`${content.uri}${content.mimeType ? `, ${content.mimeType}` : ''}`}
            text={content.text}
          />
        ) : (
          <p key={index} className="small mcp-binary">
            Binary content, {sizeText(content.bytes)}
            {content.mimeType ? `, ${content.mimeType}` : ''}: not shown as text.
          </p>
        ),
      )}
    </>
  );
}

function ResourceItem({ server, entry }: { server: string; entry: McpResourceEntry }) {
  const [read, setRead] = useState<
    | { state: 'reading'; again: boolean }
    | { state: 'read'; contents: McpResourceContent[]; updates: number }
    | { state: 'failed'; error: string }
  >();
  const doRead = (updates: number): void => {
    setRead({ state: 'reading', again: updates > 0 });
    call('mcp:read-resource', { server, uri: entry.uri }).then(
      (value) => setRead({ state: 'read', contents: value.contents, updates }),
      (failure: unknown) => setRead({ state: 'failed', error: describeError(failure) }),
    );
  };
  // The server says the resource changed (`resources/updated`): what is shown is read again.
  useStudioEvent('mcp-lists-changed', (change) => {
    if (
      change.server === server &&
      change.what === 'resource-updated' &&
      change.uri === entry.uri &&
      read?.state === 'read'
    )
      doRead(read.updates + 1);
  });
  const readLabel = read?.state === 'reading' ? 'Reading…' : read ? 'Read again' : 'Read';
  return (
    <li className="mcp-entry">
      <div className="mcp-entry-head">
        <span className="mcp-entry-name">{entry.title ?? entry.name}</span>
        {entry.template ? <span className="tag">template</span> : null}
        {entry.size !== undefined ? <span className="muted small">{sizeText(entry.size)}</span> : null}
      </div>
      <code className="small mcp-entry-uri">{entry.uri}</code>
      {entry.description !== undefined ? (
        <p className="small muted mcp-description clamped">{entry.description}</p>
      ) : null}
      {entry.template ? null : (
        <button
          type="button"
          className="button button-small"
          disabled={read?.state === 'reading'}
          onClick={() => doRead(0)}
          // The visible word first (what a voice user says), then which resource of which server.
          aria-label={`${readLabel} ${entry.uri} from MCP server ${server}`}
        >
          {readLabel}
        </button>
      )}
      {read?.state === 'read' && read.updates > 0 ? (
        <p className="small muted" role="status">
          Read again: the server said it changed.
        </p>
      ) : null}
      {read?.state === 'read' ? <ResourceContents contents={read.contents} /> : null}
      {read?.state === 'failed' ? <p className="small error-text">{read.error}</p> : null}
    </li>
  );
}

function PromptItem({ server, prompt }: { server: string; prompt: McpPromptEntry }) {
  const [form, setForm] = useState<Record<string, unknown> | null>(null);
  const [got, setGot] = useState<
    | { state: 'getting' }
    | { state: 'got'; description?: string | undefined; messages: { role: string; text: string }[] }
    | { state: 'failed'; error: string }
  >();
  const values = form ?? {};
  const { args, missing } = promptArguments(prompt, values);
  const get = (): void => {
    setGot({ state: 'getting' });
    call('mcp:get-prompt', { server, name: prompt.name, arguments: args }).then(
      (value) => setGot({ state: 'got', ...value }),
      (failure: unknown) => setGot({ state: 'failed', error: describeError(failure) }),
    );
  };
  return (
    <li className="mcp-entry">
      <div className="mcp-entry-head">
        <span className="mcp-entry-name">{prompt.title ?? prompt.name}</span>
        {prompt.arguments.length > 0 ? (
          <span className="muted small">
            {prompt.arguments.length} argument{prompt.arguments.length === 1 ? '' : 's'}
          </span>
        ) : null}
      </div>
      {prompt.description !== undefined ? (
        <p className="small muted mcp-description clamped">{prompt.description}</p>
      ) : null}
      {form === null ? (
        <button
          type="button"
          className="button button-small"
          onClick={() => setForm({})}
          aria-label={`Get the prompt ${prompt.name} of MCP server ${server}`}
        >
          Get…
        </button>
      ) : (
        <form
          className="mcp-prompt-form"
          aria-label={`Arguments of the prompt ${prompt.name}`}
          onSubmit={(event) => {
            event.preventDefault();
            if (missing.length === 0 && got?.state !== 'getting') get();
          }}
        >
          {prompt.arguments.length > 0 ? (
            <SchemaForm schema={promptSchema(prompt)} value={values} problems={[]} onChange={setForm} />
          ) : (
            <p className="small muted">This prompt takes no arguments.</p>
          )}
          {missing.length > 0 ? <p className="small muted">Required: {missing.join(', ')}.</p> : null}
          <div className="button-row">
            <button
              type="submit"
              className="button button-small button-primary"
              disabled={missing.length > 0 || got?.state === 'getting'}
            >
              {got?.state === 'getting' ? 'Getting…' : 'Get'}
            </button>
            <button type="button" className="button button-small" onClick={() => setForm(null)}>
              Close
            </button>
          </div>
        </form>
      )}
      {got?.state === 'got' ? (
        <>
          {got.description !== undefined ? <UntrustedText label="description" text={got.description} /> : null}
          {got.messages.map((message, index) => (
            <UntrustedText key={index} label={`message ${index + 1} (${message.role})`} text={message.text} />
          ))}
        </>
      ) : null}
      {got?.state === 'failed' ? <p className="small error-text">{got.error}</p> : null}
    </li>
  );
}

export function McpServerExtras({ server }: { server: { name: string; transport: 'stdio' | 'http'; state: string } }) {
  const name = server.name;
  const resources = useListing(() => call('mcp:resources', { server: name }));
  const prompts = useListing(() => call('mcp:prompts', { server: name }));
  // The server's lists changed (`list_changed`): what is open is listed again.
  useStudioEvent('mcp-lists-changed', (change) => {
    if (change.server !== name) return;
    if (change.what === 'resources') resources.reload();
    else if (change.what === 'prompts') prompts.reload();
  });
  return (
    <div className="mcp-extras">
      {server.transport === 'http' ? <McpLogin server={name} version={server.state} /> : null}
      <Disclosure label="Resources" open={resources.open} onToggle={resources.toggle} server={name} />
      {resources.open ? (
        <div className="mcp-section" role="group" aria-label={`Resources of MCP server ${name}`}>
          <p className="small muted">Names, descriptions and contents are the server’s words (untrusted).</p>
          <ListingNote listing={resources.listing} empty="This server lists no resources." />
          {resources.listing.state === 'shown' ? (
            <ul className="explorer-list">
              {resources.listing.entries.map((entry) => (
                <ResourceItem key={entry.uri} server={name} entry={entry} />
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <Disclosure label="Prompts" open={prompts.open} onToggle={prompts.toggle} server={name} />
      {prompts.open ? (
        <div className="mcp-section" role="group" aria-label={`Prompts of MCP server ${name}`}>
          <ListingNote listing={prompts.listing} empty="This server lists no prompts." />
          {prompts.listing.state === 'shown' ? (
            <ul className="explorer-list">
              {prompts.listing.entries.map((prompt) => (
                <PromptItem key={prompt.name} server={name} prompt={prompt} />
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
