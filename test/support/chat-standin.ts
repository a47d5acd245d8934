/**
 * A stand-in for an OpenAI-compatible chat server (POST /v1/chat/completions) that writes meeting
 * notes the way the service asks for them (services/intelligence/summarize/llm-notes.ts): it reads
 * the numbered transcript lines it is sent and cites them. Every line that promises work ("I'll",
 * "I will") becomes a commitment worded as a task ("Follow up: …"), so its words differ from the
 * built-in summarizer's; `owner` names an owner for every item instead of the speaker.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatStandIn {
  url: string;
  /** The request bodies received, parsed. */
  requests: { model: string; messages: { role: string; content: string }[] }[];
  close(): Promise<void>;
}

interface Line {
  index: number;
  speaker: string;
  text: string;
}

function linesOf(content: string): Line[] {
  return [...content.matchAll(/^#(\d+) \[[\d:]+\] ([^:]+): (.*)$/gm)].map((m) => ({
    index: Number(m[1]),
    speaker: m[2],
    text: m[3],
  }));
}

export function notesFor(content: string, opts: { owner?: string } = {}) {
  const lines = linesOf(content);
  const first = lines[0];
  const promises = lines.filter((l) => /\b(i'll|i will)\b/i.test(l.text));
  return {
    meeting_type: 'planning',
    short_summary: first ? `${first.speaker} opened: ${first.text}` : 'A meeting.',
    overview: promises.slice(0, 3).map((l) => ({ text: `${l.speaker}: ${l.text}`, sentences: [l.index] })),
    topics: ['Launch plan'],
    keywords: ['launch'],
    action_items: promises.map((l) => ({
      text: `Follow up: ${l.text.replace(/^i('ll| will)\s+/i, '')}`,
      kind: 'commitment',
      owner: opts.owner ?? l.speaker,
      due: null,
      sentences: [l.index],
    })),
    outline: first ? [{ title: 'Launch plan', sentence: first.index }] : [],
  };
}

export async function startChatStandIn(opts: { owner?: string } = {}): Promise<ChatStandIn> {
  const requests: ChatStandIn['requests'] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push(body);
      const user = body.messages.find((m: { role: string }) => m.role === 'user')?.content ?? '';
      const content = JSON.stringify(notesFor(user, opts));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: Math.ceil(user.length / 4), completion_tokens: Math.ceil(content.length / 4) },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
