/** IEEE 754 half-precision values (as both model formats ship weights) widened to float32. */
export const float16ToFloat32 = (bytes: Uint8Array): Float32Array => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength / 2);
  for (let i = 0; i < out.length; i++) {
    const h = view.getUint16(2 * i, true);
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >> 10) & 0x1f;
    const fraction = h & 0x3ff;
    out[i] =
      exponent === 0
        ? sign * 2 ** -14 * (fraction / 1024)
        : exponent === 0x1f
          ? fraction === 0
            ? sign * Infinity
            : NaN
          : sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
  }
  return out;
};
