/**
 * Moonshine ships its vocabulary as tokenizer.bin: for each token id in order, its length then its
 * bytes (a length under 128 is one byte; a longer one is two, the low seven bits first with the top
 * bit set; a zero length is an empty token). sherpa-onnx reads a tokens.txt instead: one line per
 * token, the base64 of its bytes, a space, its id.
 */
export function moonshineTokens(bin: Buffer): string {
  const lines: string[] = [];
  let i = 0;
  while (i < bin.length) {
    const first = bin[i++];
    let length = first;
    if (first >= 128) {
      if (i >= bin.length) throw new Error('tokenizer.bin ends inside a token length');
      length = bin[i++] * 128 + (first - 128);
    }
    if (i + length > bin.length) throw new Error('tokenizer.bin ends inside a token');
    lines.push(`${bin.subarray(i, i + length).toString('base64')} ${lines.length}`);
    i += length;
  }
  return `${lines.join('\n')}\n`;
}
