/** Connected regions (4-neighbour) of the set pixels of a binary mask. */
export interface Region {
  readonly label: number;
  readonly size: number;
  readonly left: number;
  readonly top: number;
  /** Exclusive. */
  readonly right: number;
  readonly bottom: number;
}

export interface Regions {
  /** Per pixel: the region's label, or -1 for unset pixels. */
  readonly labels: Int32Array;
  /** Largest first. */
  readonly regions: ReadonlyArray<Region>;
}

export const labelRegions = (on: Uint8Array, width: number): Regions => {
  const n = on.length;
  const labels = new Int32Array(n).fill(-1);
  const regions: Array<Region> = [];
  const stack = new Int32Array(n);
  for (let start = 0; start < n; start++) {
    if (!on[start] || labels[start] !== -1) continue;
    const label = regions.length;
    let size = 0;
    let left = width;
    let top = n;
    let right = 0;
    let bottom = 0;
    let depth = 0;
    labels[start] = label;
    stack[depth++] = start;
    while (depth > 0) {
      const i = stack[--depth]!;
      const x = i % width;
      const y = (i - x) / width;
      size++;
      if (x < left) left = x;
      if (x + 1 > right) right = x + 1;
      if (y < top) top = y;
      if (y + 1 > bottom) bottom = y + 1;
      // Each pixel is pushed once (labelled on push), so the stack never outgrows the image.
      if (x > 0 && on[i - 1] && labels[i - 1] === -1) {
        labels[i - 1] = label;
        stack[depth++] = i - 1;
      }
      if (x < width - 1 && on[i + 1] && labels[i + 1] === -1) {
        labels[i + 1] = label;
        stack[depth++] = i + 1;
      }
      if (i >= width && on[i - width] && labels[i - width] === -1) {
        labels[i - width] = label;
        stack[depth++] = i - width;
      }
      if (i + width < n && on[i + width] && labels[i + width] === -1) {
        labels[i + width] = label;
        stack[depth++] = i + width;
      }
    }
    regions.push({ label, size, left, top, right, bottom });
  }
  return { labels, regions: regions.sort((a, b) => b.size - a.size) };
};
