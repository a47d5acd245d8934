/**
 * A chat-completions server (POST /v1/chat/completions, the OpenAI form) over node-llama-cpp and a
 * GGUF model, for the tests that run the service's LLM notes against a real model
 * (test/integration/intelligence/llm-real-model.test.ts). One request at a time on one context: the
 * model is tiny and the tests are sequential.
 *
 *   node test/llm-server/server.mjs <model.gguf>      # prints "listening <url>" once ready
 *
 * response_format json_schema becomes a grammar from the schema (node-llama-cpp's JSON-schema subset;
 * a schema it cannot take is answered 400, as a server that refuses json_schema would); json_object
 * becomes the JSON grammar. max_tokens caps the answer; usage counts the context's tokens.
 * LLM_CONTEXT sets the context's size in tokens (4096 by default: the tests' meetings are short; a
 * larger model over the labelled set wants 8192) and LLM_THREADS the CPU threads (1 by default: on a
 * shared machine more threads were slower, see ../shared notes on models).
 * LLM_PORT sets the port (any free one by default). A request whose prompt and max_tokens do not fit
 * in the context is answered 400, as llama.cpp's server does, never shortened to fit: the service's
 * budget per call (LLM_PART_CHARS, LLM_MAX_TOKENS) must hold.
 * Under the base path /refuse (POST /refuse/v1/chat/completions) a json_schema request is answered 400,
 * as by a server that does not take schemas, to exercise the client's json_object path.
 */
import http from 'node:http';
import { getLlama, LlamaChatSession } from 'node-llama-cpp';

const modelPath = process.argv[2];
if (!modelPath) {
  console.error('usage: node server.mjs <model.gguf>');
  process.exit(2);
}

const llama = await getLlama({ gpu: false, logLevel: 'error' });
const model = await llama.loadModel({ modelPath });
const contextSize = Number(process.env.LLM_CONTEXT ?? 4096);
const context = await model.createContext({
  contextSize,
  threads: Number(process.env.LLM_THREADS ?? 1),
});
const sequence = context.getSequence();
const jsonGrammar = await llama.getGrammarFor('json');

function historyOf(messages) {
  return messages
    .slice(0, -1)
    .map((m) =>
      m.role === 'system'
        ? { type: 'system', text: m.content }
        : m.role === 'assistant'
          ? { type: 'model', response: [m.content] }
          : { type: 'user', text: m.content },
    );
}

async function complete(body, refuseSchema) {
  const format = body.response_format?.type;
  let grammar;
  if (format === 'json_schema') {
    if (refuseSchema)
      return { status: 400, body: { error: { message: 'response_format json_schema is not supported' } } };
    try {
      grammar = await llama.createGrammarForJsonSchema(body.response_format.json_schema.schema);
    } catch (e) {
      return { status: 400, body: { error: { message: `unsupported schema: ${e.message}` } } };
    }
  } else if (format === 'json_object') grammar = jsonGrammar;

  const messages = body.messages ?? [];
  const last = messages.at(-1);
  if (!last || last.role !== 'user')
    return { status: 400, body: { error: { message: "the last message must be the user's" } } };
  // The prompt as the chat template lays it out is a little longer than its messages: a margin.
  const promptTokens = messages.reduce((n, m) => n + model.tokenize(String(m.content ?? '')).length + 8, 16);
  const maxTokens = body.max_tokens ?? 512;
  if (promptTokens + maxTokens > contextSize)
    return {
      status: 400,
      body: {
        error: {
          type: 'exceed_context_size_error',
          message: `the request exceeds the available context size: about ${promptTokens} prompt tokens and max_tokens ${maxTokens}, context ${contextSize}`,
        },
      },
    };
  await sequence.clearHistory();
  const before = { input: sequence.tokenMeter.usedInputTokens, output: sequence.tokenMeter.usedOutputTokens };
  const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
  session.setChatHistory(historyOf(messages));
  try {
    const { response, stopReason } = await session.promptWithMeta(last.content, {
      grammar,
      maxTokens,
      temperature: body.temperature ?? 0,
      seed: 1,
    });
    const text = response.filter((r) => typeof r === 'string').join('');
    return {
      status: 200,
      body: {
        id: `chatcmpl-${Date.now()}`,
        object: 'chat.completion',
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text },
            finish_reason: stopReason === 'maxTokens' ? 'length' : 'stop',
          },
        ],
        usage: {
          prompt_tokens: sequence.tokenMeter.usedInputTokens - before.input,
          completion_tokens: sequence.tokenMeter.usedOutputTokens - before.output,
        },
      },
    };
  } finally {
    session.dispose({ disposeSequence: false });
  }
}

let queue = Promise.resolve();
const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    const refuse = req.url === '/refuse/v1/chat/completions';
    if (req.method !== 'POST' || (req.url !== '/v1/chat/completions' && !refuse)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not found"}}');
      return;
    }
    queue = queue.then(async () => {
      let answer;
      try {
        answer = await complete(JSON.parse(raw), refuse);
      } catch (e) {
        answer = { status: 500, body: { error: { message: String(e?.message ?? e) } } };
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
});
server.listen(Number(process.env.LLM_PORT ?? 0), '127.0.0.1', () =>
  console.log(`listening http://127.0.0.1:${server.address().port}`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
