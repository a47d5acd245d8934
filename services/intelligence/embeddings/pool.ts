/** From the graph's output to one unit-length vector per text. */

/** Token states [rows, width, dims] to [rows][dims]: the masked mean or the first token. */
export function pool(
  states: Float32Array,
  mask: BigInt64Array,
  rows: number,
  width: number,
  dims: number,
  how: 'mean' | 'cls',
): Float32Array[] {
  const out: Float32Array[] = [];
  for (let r = 0; r < rows; r++) {
    const v = new Float32Array(dims);
    if (how === 'cls') v.set(states.subarray(r * width * dims, r * width * dims + dims));
    else {
      let n = 0;
      for (let t = 0; t < width; t++) {
        if (mask[r * width + t] === 0n) continue;
        n++;
        const at = (r * width + t) * dims;
        for (let d = 0; d < dims; d++) v[d] += states[at + d];
      }
      for (let d = 0; d < dims; d++) v[d] /= Math.max(n, 1);
    }
    out.push(normalize(v));
  }
  return out;
}

/** Sentence vectors [rows, dims] as they come from a graph that pools itself. */
export function rowsOf(vectors: Float32Array, rows: number, dims: number): Float32Array[] {
  return Array.from({ length: rows }, (_, r) => normalize(vectors.slice(r * dims, (r + 1) * dims)));
}

/** Scaled to length 1 in place (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}
