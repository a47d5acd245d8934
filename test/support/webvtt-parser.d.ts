/** The W3C WebVTT validator's parser (npm webvtt-parser), which ships no type declarations: the part the tests use. */
declare module 'webvtt-parser' {
  export interface VttNode {
    type: 'object' | 'text';
    name?: string;
    value?: string;
    children?: VttNode[];
  }
  export interface VttCue {
    id: string;
    startTime: number;
    endTime: number;
    text: string;
    tree: { children: VttNode[] };
  }
  export class WebVTTParser {
    constructor(entities?: Record<string, string>);
    parse(
      input: string,
      mode?: 'metadata' | 'chapters',
    ): { cues: VttCue[]; errors: { message: string; line: number }[] };
  }
}
