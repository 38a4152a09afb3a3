"""Train the field classifier (vision/fieldnet.py) on data from training/fielddata.py; export ONNX.

    python -m training.train_fields --data data.npz --out vision/models --seed 1

CPU only (2 cores are enough: ~20-30 min for the default data). Needs the
``train`` extra (torch, onnx): ``pip install -e '.[train]'``. The same data and
seed give the same figures within noise (torch's CPU kernels are not bit for
bit deterministic across machines).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from vision.anyset.fieldnet import N_SCALARS, REF_UNKNOWN, normalise, scalars  # noqa: E402

NO_REF_SHARE = 0.2


class FieldModel(nn.Module):
    """Conv trunk on (now, reference) patches; the scalars join at the dense layer."""

    def __init__(self, n_out: int) -> None:
        super().__init__()
        # small on purpose: 85 patches a frame must run in a few ms on one core of a Pi-class CPU
        self.c1 = nn.Conv2d(6, 12, 5, stride=2, padding=2)     # 24 -> 12
        self.c2 = nn.Conv2d(12, 24, 3, padding=1)              # 12, pooled to 6
        self.c3 = nn.Conv2d(24, 32, 3, padding=1)              # 6, pooled to 3
        self.f1 = nn.Linear(32 * 3 * 3 + N_SCALARS, 48)
        self.f2 = nn.Linear(48, n_out)

    def forward(self, patch: torch.Tensor, scal: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.c1(patch))
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.max_pool2d(F.relu(self.c3(x)), 2)
        x = torch.cat([x.flatten(1), scal], dim=1)
        return self.f2(F.relu(self.f1(x)))


_BLUR = None


def augment(x: torch.Tensor, rng: np.random.Generator) -> None:
    """In place, on the patches *now* only: what another camera or renderer does differently --
    softer focus, more noise, a frame shifted by a pixel against the reference (a localisation
    off by a little, a nudged camera)."""
    global _BLUR
    if _BLUR is None:
        g = torch.exp(-torch.arange(-2, 3, dtype=torch.float32) ** 2 / (2 * 0.9 ** 2))
        k = (g[:, None] * g[None, :]) / g.sum() ** 2
        _BLUR = k.expand(3, 1, 5, 5).contiguous()
    n = len(x)
    blur = torch.from_numpy(rng.random(n) < 0.3)
    if blur.any():
        x[blur, :3] = F.conv2d(F.pad(x[blur, :3], (2, 2, 2, 2), mode="replicate"), _BLUR, groups=3)
    x[:, :3] += torch.from_numpy(rng.normal(0, 1, (n, 1, 1, 1)).astype(np.float32)).abs() * 0.03 * torch.randn_like(x[:, :3])
    shift = np.flatnonzero(rng.random(n) < 0.2)
    for i in shift:
        dy, dx = (int(v) for v in rng.integers(-1, 2, 2))
        x[i, :3] = torch.roll(x[i, :3], (dy, dx), (1, 2))


def build(data: dict, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Inputs (n, 6, P, P), scalars, labels, printed, set-up id, for 'sq' or 'pt'."""
    frames = len(data["sq"])
    xs, ss, ys, prs, ids = [], [], [], [], []
    for i in range(frames):
        _, lev = normalise(data["sq"][i])
        _, lev_ref = normalise(data["ref_sq"][i])
        a, _ = normalise(data[kind][i], lev)
        b, _ = normalise(data["ref_" + kind][i], lev_ref)
        xs.append(np.concatenate([a, b], axis=1).astype(np.float16))
        ss.append(scalars(data[f"ref_{kind}_state"][i], data[f"{kind}_lean"][i]))
        ys.append(data[f"{kind}_lab"][i])
        prs.append(data["printed"][i] if kind == "pt" else np.zeros(36, bool))
        ids.append(np.full(len(a), data["setup"][i]))
    return np.concatenate(xs), np.concatenate(ss), np.concatenate(ys), np.concatenate(prs), np.concatenate(ids)


def train(kind: str, data: dict, epochs: int, seed: int, out: Path, log=print) -> dict:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    X, S, Y, P, ids = build(data, kind)
    setups = np.unique(ids)
    val_setups = set(setups[rng.permutation(len(setups))[: max(1, len(setups) // 10)]].tolist())
    val = np.array([i in val_setups for i in ids])
    n_out = 3 if kind == "sq" else 4
    model = FieldModel(n_out)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-5)
    tr = np.flatnonzero(~val)
    steps = epochs * (len(tr) // 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    Xt, St, Yt, Pt = torch.from_numpy(X), torch.from_numpy(S), torch.from_numpy(Y).long(), torch.from_numpy(P).float()
    t0 = time.time()
    for ep in range(epochs):
        model.train()
        order = torch.from_numpy(rng.permutation(tr))
        tot, nb = 0.0, 0
        for k in range(len(tr) // 256):
            b = order[k * 256:(k + 1) * 256]
            x = Xt[b].float()
            s = St[b].clone()
            # no reference for some samples (a field never seen in a known state)
            drop = torch.from_numpy(rng.random(len(b)) < NO_REF_SHARE)
            x[drop, 3:] = 0.0
            s[drop, :3] = 0.0
            s[drop, REF_UNKNOWN] = 1.0
            # mirror about the lean axis (up stays up), and a small change of light on "now" alone
            flip = torch.from_numpy(rng.random(len(b)) < 0.5)
            x[flip] = x[flip].flip(3)
            x[:, :3] += torch.from_numpy(rng.normal(0, 0.08, (len(b), 3, 1, 1)).astype(np.float32))
            augment(x, rng)
            y = Yt[b]
            z = model(x, s)
            loss = F.cross_entropy(z[:, :3], y)
            if kind == "pt":
                m = y == 1
                if m.any():
                    loss = loss + 0.5 * F.binary_cross_entropy_with_logits(z[m, 3], Pt[b][m])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach())
            nb += 1
        acc = evaluate(model, Xt, St, Yt, Pt, np.flatnonzero(val), kind)
        log(f"{kind} epoch {ep + 1}/{epochs}: loss {tot / max(nb, 1):.4f}; validation {acc}; {time.time() - t0:.0f} s")
    export(model, kind, out)
    return evaluate(model, Xt, St, Yt, Pt, np.flatnonzero(val), kind)


@torch.no_grad()
def evaluate(model, Xt, St, Yt, Pt, idx, kind) -> dict:
    model.eval()
    out = []
    for k in range(0, len(idx), 2048):
        b = torch.from_numpy(idx[k:k + 2048])
        out.append(model(Xt[b].float(), St[b]))
    z = torch.cat(out)
    p = F.softmax(z[:, :3], 1)
    y = Yt[torch.from_numpy(idx)]
    conf, pred = p.max(1)
    res = {"acc": round(float((pred == y).float().mean()), 5),
           "wrong_at_0.98": int(((pred != y) & (conf >= 0.98)).sum()),
           "below_0.98": round(float((conf < 0.98).float().mean()), 4)}
    if kind == "pt":
        m = y == 1
        pp = torch.sigmoid(z[m, 3])
        t = Pt[torch.from_numpy(idx)][m]
        sure = (pp > 0.9) | (pp < 0.1)
        res["side_claimed"] = round(float(sure.float().mean()), 4)
        res["side_right"] = round(float(((pp > 0.5) == (t > 0.5))[sure].float().mean()), 5) if sure.any() else None
    return res


def export(model: nn.Module, kind: str, out: Path) -> None:
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    name = {"sq": "squares.onnx", "pt": "points.onnx"}[kind]
    x = torch.zeros(4, 6, 24, 24)
    s = torch.zeros(4, N_SCALARS)
    torch.onnx.export(model, (x, s), str(out / name), input_names=["patch", "scalars"], output_names=["logits"],
                      dynamic_axes={"patch": {0: "n"}, "scalars": {0: "n"}, "logits": {0: "n"}}, dynamo=False,
                      opset_version=13)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, nargs="+", help="npz file(s) from training.fielddata")
    ap.add_argument("--out", default=str(ROOT / "vision" / "anyset" / "models"))
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", choices=("sq", "pt"))
    a = ap.parse_args(argv)
    torch.set_num_threads(2)
    parts = [dict(np.load(p)) for p in a.data]
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    for kind in ("sq", "pt"):
        if a.only and kind != a.only:
            continue
        res = train(kind, data, a.epochs, a.seed, Path(a.out))
        print(f"{kind}: {res}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
