/**
 * The smallest useful test file, for the example workspace's agents/echo-loop.lua (a tool loop
 * that offers the model an `echo` tool). `promptforge test --help` and the studio's Tests view show
 * it; test/node/cli/test-command.test.ts runs it and it passes as written. docs/testing.md has
 * the full format.
 */
export const MINIMAL_TEST_FILE = `cases:
  - name: echoes hello, then answers
    agent: agents/echo-loop.lua
    model: # a scripted model: reply N answers model round N, offline
      replies:
        - calls: [{ name: echo, arguments: { text: hello } }]
        - content: I echoed hello.
    expect:
      calls: [{ tool: echo, arguments: { text: hello } }]
      final: { contains: hello }
`;
