/**
 * The MCP benchmark's baseline: the SDK's own stateless Streamable HTTP server answering one no-op
 * tool, and nothing else, wired as the mcp role wires it (services/mcp/app.ts, server.ts): an SDK
 * Server and a transport per request (JSON responses), one JSON Schema validator for the process,
 * and hono's lightweight Response globals under the SDK's transport. So the floor is what the
 * protocol costs done the way the role does it, not what it costs done slower. Plain JavaScript run
 * by node, as the mcp role runs from its compiled build, so both pay the same runtime.
 *
 *   node test/bench/bare-sdk-server.cjs <port>      # prints "ready <url>" once listening
 */
const { createRequire } = require('node:module');
const express = require('express');
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { AjvJsonSchemaValidator } = require('@modelcontextprotocol/sdk/validation/ajv-provider.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

// The copy of @hono/node-server the SDK's transport loads, told to install its lightweight globals (app.ts, useLightweightResponses).
createRequire(require.resolve('@modelcontextprotocol/sdk/server/streamableHttp.js'))(
  '@hono/node-server',
).getRequestListener(() => null);

const validator = new AjvJsonSchemaValidator();
const NOOP = { name: 'noop', description: 'does nothing', inputSchema: { type: 'object', properties: {} } };

const app = express();
app.post('/mcp', express.json(), async (req, res) => {
  const mcp = new Server(
    { name: 'bare', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: validator },
  );
  mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [NOOP] }));
  mcp.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
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
