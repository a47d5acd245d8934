/**
 * The MCP benchmark's baseline: the SDK's own stateless Streamable HTTP server (McpServer + a
 * transport per request, JSON responses) answering one no-op tool, and nothing else. Plain
 * JavaScript run by node, as the mcp role runs from its compiled build, so both pay the same runtime.
 *
 *   node test/bench/bare-sdk-server.cjs <port>      # prints "ready <url>" once listening
 */
const express = require('express');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');

const app = express();
app.post('/mcp', express.json(), async (req, res) => {
  const mcp = new McpServer({ name: 'bare', version: '1.0.0' });
  mcp.registerTool('noop', { description: 'does nothing', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res, req.body);
});

const server = app.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`ready http://127.0.0.1:${server.address().port}/mcp\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
