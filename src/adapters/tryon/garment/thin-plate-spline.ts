import type { Point } from "../../../ports/engines/tryon-engine.ts";

/**
 * A 2-D thin-plate spline: the smoothest mapping that takes each control point to its target
 * (Bookstein 1989). f(p) = a0 + a1·x + a2·y + Σ wᵢ·U(|p − cᵢ|), with U(r) = r²·log r².
 */
export interface ThinPlateSpline {
  readonly controls: ReadonlyArray<Point>;
  /** N rows of [wx, wy]. */
  readonly weights: ReadonlyArray<readonly [number, number]>;
  /** Rows [a0], [a1], [a2], each [x, y]. */
  readonly affine: readonly [readonly [number, number], readonly [number, number], readonly [number, number]];
  readonly map: (p: Point) => Point;
}

export const tpsKernel = (r2: number): number => (r2 === 0 ? 0 : r2 * Math.log(r2));

/** Solves A·X = B in place (Gaussian elimination with partial pivoting); B has two columns. */
const solve = (a: Array<Array<number>>, b: Array<[number, number]>): Array<[number, number]> => {
  const n = a.length;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    [b[col], b[pivot]] = [b[pivot]!, b[col]!];
    const p = a[col]![col]!;
    if (Math.abs(p) < 1e-12) throw new Error("thin-plate spline: degenerate control points");
    for (let r = col + 1; r < n; r++) {
      const f = a[r]![col]! / p;
      if (f === 0) continue;
      for (let c = col; c < n; c++) a[r]![c]! -= f * a[col]![c]!;
      b[r]![0] -= f * b[col]![0];
      b[r]![1] -= f * b[col]![1];
    }
  }
  const x: Array<[number, number]> = Array.from({ length: n }, () => [0, 0]);
  for (let r = n - 1; r >= 0; r--) {
    let sx = b[r]![0];
    let sy = b[r]![1];
    for (let c = r + 1; c < n; c++) {
      sx -= a[r]![c]! * x[c]![0];
      sy -= a[r]![c]! * x[c]![1];
    }
    x[r] = [sx / a[r]![r]!, sy / a[r]![r]!];
  }
  return x;
};

/** Fits the spline taking `from[i]` to `to[i]`; `smoothing` > 0 trades exactness for stiffness. */
export const fitThinPlateSpline = (from: ReadonlyArray<Point>, to: ReadonlyArray<Point>, smoothing = 0): ThinPlateSpline => {
  const n = from.length;
  const a: Array<Array<number>> = Array.from({ length: n + 3 }, () => new Array<number>(n + 3).fill(0));
  const b: Array<[number, number]> = Array.from({ length: n + 3 }, () => [0, 0]);
  from.forEach((p, i) => {
    from.forEach((q, j) => {
      a[i]![j] = tpsKernel((p.x - q.x) ** 2 + (p.y - q.y) ** 2) + (i === j ? smoothing : 0);
    });
    a[i]![n] = 1;
    a[i]![n + 1] = p.x;
    a[i]![n + 2] = p.y;
    a[n]![i] = 1;
    a[n + 1]![i] = p.x;
    a[n + 2]![i] = p.y;
    b[i] = [to[i]!.x, to[i]!.y];
  });
  const x = solve(a, b);
  const weights = x.slice(0, n);
  const affine = [x[n]!, x[n + 1]!, x[n + 2]!] as const;
  const map = (p: Point): Point => {
    let fx = affine[0][0] + affine[1][0] * p.x + affine[2][0] * p.y;
    let fy = affine[0][1] + affine[1][1] * p.x + affine[2][1] * p.y;
    from.forEach((c, i) => {
      const u = tpsKernel((p.x - c.x) ** 2 + (p.y - c.y) ** 2);
      fx += weights[i]![0] * u;
      fy += weights[i]![1] * u;
    });
    return { x: fx, y: fy };
  };
  return { controls: from, weights, affine, map };
};
