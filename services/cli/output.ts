/** Every command prints one JSON object with --json, or readable lines without it. */
export interface Output {
  json: boolean;
  result(obj: Record<string, unknown>, human: string): void;
}

export function output(json: boolean): Output {
  return {
    json,
    result(obj, human) {
      process.stdout.write(json ? `${JSON.stringify(obj)}\n` : `${human}\n`);
    },
  };
}
