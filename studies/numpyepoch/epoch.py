"""One epoch of GRLGQ set training, vectorised as well as NumPy allows.

The reference for BenchmarkEpoch's NumPy comparison (README, issue 24): the
per-sample SGD of model.Trainer.Step (Algorithm 2, global relevances, the
identity activation, the exact update W <- W (I + K) + P B) on the same
synthetic shapes (random orthonormal bases, one prototype per class, random
start, constant rates), each step as NumPy does it fastest:

  - one GEMM of the sample against all prototypes kept side by side
    (P^T [W_1 ... W_p], d x p*d),
  - the p singular values batched: np.linalg.svd(compute_uv=False) on the
    stacked (p, d, d) projections, or the square roots of
    np.linalg.eigvalsh on their Gram matrices M^T M (the faster of the two
    is taken per shape, --values),
  - the two winners' SVD batched, their update as two GEMMs.

Usage: python3 epoch.py [--epochs N] [--values svd|eig|best]; it prints the
median time per epoch after one warm-up epoch, and that of the epoch's
GEMMs alone (NumPy's floor, beside BenchmarkEpoch's). Run it with Debian's
python3-numpy over OpenBLAS, OPENBLAS_NUM_THREADS=1 for one core. Not part
of the module's build or CI.
"""
import argparse
import time

import numpy as np

SHAPES = {"eth80": (400, 5, 8, 40), "mnist": (784, 12, 10, 500), "yaleb": (400, 25, 28, 84)}
ETA, GAMMA, FLOOR = 0.05, 1e-4, 1e-4


def orthonormal(rng, rows, cols):
    q, _ = np.linalg.qr(rng.standard_normal((rows, cols)))
    return q


def values(m, route):
    if route == "svd":
        return np.linalg.svd(m, compute_uv=False)
    g = np.einsum("kji,kjl->kil", m, m)  # M^T M
    ev = np.linalg.eigvalsh(g)[:, ::-1]  # descending
    return np.sqrt(np.clip(ev, 0, None))


def theta_over_sin(t):
    out = np.ones_like(t)
    nz = t > 1e-8
    out[nz] = t[nz] / np.sin(t[nz])
    return out


def epoch(x, y, W, lam, perm, route):
    D, pd = W.shape
    d = lam.shape[0]
    p = pd // d
    labels = np.arange(p)
    for i in perm:
        P, c = x[i], y[i]
        m = (P.T @ W).reshape(d, p, d).transpose(1, 0, 2)  # (p, d, d)
        s = values(m, route)
        th = np.arccos(np.clip(s, 0, 1))
        dist = (th * th) @ lam
        same = labels == c
        plus = np.flatnonzero(same)[np.argmin(dist[same])]
        minus = np.flatnonzero(~same)[np.argmin(dist[~same])]
        dp, dm = dist[plus], dist[minus]
        S = dp + dm
        if S <= 1e-14:
            continue
        u, cs, vt = np.linalg.svd(m[[plus, minus]])  # Q_P, cos, Q_W^T
        thw = np.arccos(np.clip(cs, 0, 1))
        inv = 2 / (S * S)
        scale = np.array([-inv * dm, inv * dp])
        g = scale[:, None] * 2 * lam * theta_over_sin(thw)  # (2, d)
        lam_new = lam - GAMMA * inv * (dm * thw[0] ** 2 - dp * thw[1] ** 2)
        for side, k in enumerate((plus, minus)):
            a = -ETA * g[side]
            e = a * (2 * cs[side] + a)
            n = np.sqrt(1 + e)
            qw = vt[side].T
            K = (qw * (-e / (n * (n + 1)))) @ qw.T
            B = (u[side] * (a / n)) @ qw.T
            wk = W[:, k * d:(k + 1) * d]
            W[:, k * d:(k + 1) * d] = wk + wk @ K + P @ B
        lam = np.maximum(lam_new, FLOOR)
        lam /= lam.sum()
    return lam


def floor_epoch(x, W):
    for P in x:
        P.T @ W


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--values", default="best")
    ap.add_argument("--shapes", default="eth80,mnist,yaleb")
    args = ap.parse_args()
    for name in args.shapes.split(","):
        D, d, classes, n = SHAPES[name]
        rng = np.random.default_rng(1)
        x = [orthonormal(rng, D, d) for _ in range(n)]
        y = np.arange(n) % classes
        routes = ["svd", "eig"] if args.values == "best" else [args.values]
        best = None
        for route in routes:
            W = np.hstack([orthonormal(rng, D, d) for _ in range(classes)])
            W = np.ascontiguousarray(W)
            lam = np.full(d, 1 / d)
            times = []
            for e in range(args.epochs + 1):
                perm = rng.permutation(n)
                t0 = time.perf_counter()
                lam = epoch(x, y, W, lam, perm, route)
                if e > 0:
                    times.append(time.perf_counter() - t0)
            med = float(np.median(times))
            print(f"{name} values={route}: {med * 1e3:.3f} ms/epoch (median of {len(times)})")
            if best is None or med < best[1]:
                best = (route, med)
        print(f"{name}: best {best[0]} {best[1] * 1e3:.3f} ms/epoch")
        times = []
        for e in range(args.epochs + 1):
            t0 = time.perf_counter()
            floor_epoch(x, W)
            if e > 0:
                times.append(time.perf_counter() - t0)
        print(f"{name}: its GEMMs alone (P^T [W_1 ... W_p]) {float(np.median(times)) * 1e3:.3f} ms/epoch")


if __name__ == "__main__":
    main()
