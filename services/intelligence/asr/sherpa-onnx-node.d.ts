/** The parts of sherpa-onnx-node (which ships no type declarations) the embedded engine uses. */
declare module 'sherpa-onnx-node' {
  export interface OfflineRecognizerResult {
    text: string;
    tokens?: string[];
    timestamps?: number[];
    lang?: string;
  }
  export interface OfflineStream {
    acceptWaveform(wave: { sampleRate: number; samples: Float32Array }): void;
  }
  export class OfflineRecognizer {
    static createAsync(config: Record<string, unknown>): Promise<OfflineRecognizer>;
    createStream(): OfflineStream;
    decodeAsync(stream: OfflineStream): Promise<OfflineRecognizerResult>;
    setConfig(config: Record<string, unknown>): void;
  }
  export class SpokenLanguageIdentification {
    constructor(config: Record<string, unknown>);
    createStream(): OfflineStream;
    /** An ISO 639-1 code (e.g. en, cs), computed synchronously. */
    compute(stream: OfflineStream): string;
  }
  export interface SpeechSegment {
    start: number;
    samples: Float32Array;
  }
  export class Vad {
    constructor(config: Record<string, unknown>, bufferSizeInSeconds: number);
    acceptWaveform(samples: Float32Array): void;
    isEmpty(): boolean;
    front(enableExternalBuffer?: boolean): SpeechSegment;
    pop(): void;
    reset(): void;
    flush(): void;
  }
  export const version: string;
}
