"""Train the field classifier (vision/fieldnet.py) on data from training/fielddata.py; export ONNX.

    python -m training.train_fields --data part*.npz --out vision/anyset/models --seed 1

CPU only (2 cores are enough: ~20-30 min for the default data). Needs the
``train`` extra (torch, onnx): ``pip install -e '.[train]'``. The same data and
seed give the same figures within noise (torch's CPU kernels are not bit for
bit deterministic across machines).
"""

from __future__ import annotations

import argparse
import hashlib
import os
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

from vision.anyset.fieldnet import (N_CHANNELS, N_SCALARS, REF_UNKNOWN, example_fields, field_distances,  # noqa: E402
                                    normalise, scalars)
from vision.geometry import point_coords, square_centers  # noqa: E402

NO_REF_SHARE = 0.05        # samples with no reference at all (no own patch, no examples)
SELF_SHARE = 0.15          # samples checked against their own frame's other fields (calibration: look_as)
OWN_UNKNOWN_SHARE = 0.08   # the field's own reference unknown (covered when it was learned), examples given
DROP_EXAMPLE = 0.04        # each example missing (a board without batteries, without an empty square ...)
HIDDEN_VIEW = 0.5          # a point where the camera would see less than this share of a battery is unseen:
                           # its target is "either" (half empty, half battery), never what the layout says
UNSEEN = 3                 # the label of such a sample (the data's labels are 0 / 1 / 2)
MAX_LR = 3e-3              # the one-cycle schedule's peak learning rate (from scratch)
BATCH = 256                # samples a training step
MINE_POOL = 2              # with --mine: each batch is chosen from this many times its size of candidates


WIDTHS = {"sq": (16, 32, 48, 64), "pt": (16, 32, 48, 64)}
N_OUT = {"sq": 3, "pt": 4}      # squares: empty, robot, covered; points: empty, battery, covered, printed side


class FieldModel(nn.Module):
    """Conv trunk on (now, reference) patches; the scalars join at the dense layer.

    ``fine`` (the points net since 27 November 2026): the patches come at twice the resolution
    (48 px) and are split into their four 2x2 pixel phases (``pixel_unshuffle``: 4x the channels
    at 24x24, :data:`PHASES`); the first convolution then sees the fine detail (a battery 0.12 of
    a square across is 8 px wide at 48, 4 px at 24) on the same output grid, the rest of the net
    unchanged. The exported nets take the split patches (the reader splits them, numpy: cheaper
    than a 10x10 kernel at stride 4 in ``cv2.dnn``, the same thing)."""

    def __init__(self, n_out: int, widths: tuple[int, int, int, int], fine: bool = False) -> None:
        super().__init__()
        # small on purpose: 85 patches a frame must run in a few ms on one core of a Pi-class CPU
        a, b, c, d = widths
        self.fine = bool(fine)
        self.phases = 4 if fine else 1
        self.c1 = nn.Conv2d(N_CHANNELS * self.phases, a, 5, stride=2, padding=2)   # 24 -> 12
        self.c2 = nn.Conv2d(a, b, 3, padding=1)                # 12, pooled to 6
        self.c3 = nn.Conv2d(b, c, 3, padding=1)                # 6, pooled to 3
        self.f1 = nn.Linear(c * 3 * 3 + N_SCALARS, d)
        self.f2 = nn.Linear(d, n_out)

    @property
    def patch(self) -> int:
        """The patch size the net takes (pixels a side, before the split into phases)."""
        return 48 if self.fine else 24

    def split(self, patch: torch.Tensor) -> torch.Tensor:
        """The patches as the first convolution takes them (split into phases where ``fine``)."""
        return F.pixel_unshuffle(patch, 2) if self.fine else patch

    def forward(self, patch: torch.Tensor, scal: torch.Tensor) -> torch.Tensor:
        return self.after_first(self.c1(self.split(patch)), scal)

    def after_first(self, c1: torch.Tensor, scal: torch.Tensor) -> torch.Tensor:
        """The net from the first convolution's output (before its ReLU) on."""
        x = F.relu(c1)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.max_pool2d(F.relu(self.c3(x)), 2)
        x = torch.cat([x.flatten(1), scal], dim=1)
        return self.f2(F.relu(self.f1(x)))


class SplitInput(nn.Module):
    """The whole net on patches already split into phases (``<kind>.onnx``; the same as the net
    where it is not ``fine``)."""

    def __init__(self, model: FieldModel) -> None:
        super().__init__()
        self.model = model

    def forward(self, patch: torch.Tensor, scal: torch.Tensor) -> torch.Tensor:
        return self.model.after_first(self.model.c1(patch), scal)


class KnownPart(nn.Module):
    """The first convolution over the known channels alone (the reference patch and the two
    examples), with its bias: constant while the reader's reference stays, so the reader
    computes it once per reference (``<kind>.known.onnx``)."""

    def __init__(self, model: FieldModel) -> None:
        super().__init__()
        self.model = model

    def forward(self, known: torch.Tensor) -> torch.Tensor:
        c1, now = self.model.c1, 3 * self.model.phases
        return F.conv2d(known, c1.weight[:, now:], c1.bias, stride=c1.stride, padding=c1.padding)


class FastForm(nn.Module):
    """The whole net given the known part of the first convolution (``<kind>.fast.onnx``): the
    patch now's share of the first convolution, plus the known part, then the rest. Equal to the
    full net (``<kind>.onnx``) on the concatenated input."""

    def __init__(self, model: FieldModel) -> None:
        super().__init__()
        self.model = model

    def forward(self, now: torch.Tensor, known_c1: torch.Tensor, scal: torch.Tensor) -> torch.Tensor:
        c1, n = self.model.c1, 3 * self.model.phases
        x = F.conv2d(now, c1.weight[:, :n], None, stride=c1.stride, padding=c1.padding) + known_c1
        return self.model.after_first(x, scal)


_BLUR = None


_PERMS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))


def recolour(x: torch.Tensor, rng: np.random.Generator) -> None:
    """In place: the colour channels swapped, the same way in the patch now and in the reference
    (a teal battery on a red ring becomes a red one on a blue ring ...), and the log colour's
    contrast scaled a little: six times the sets the renderer drew, with every relation between
    now and the reference kept."""
    perm = rng.integers(0, len(_PERMS), len(x))
    for k in range(1, len(_PERMS)):
        m = torch.from_numpy(perm == k)
        if m.any():
            order = [3 * g + c for g in range(N_CHANNELS // 3) for c in _PERMS[k]]
            x[m] = x[m][:, order]
    x.mul_(torch.from_numpy(rng.uniform(0.8, 1.25, (len(x), 1, 1, 1)).astype(np.float32)))


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


_LOG_T = torch.from_numpy(np.log(np.arange(256, dtype=np.float32) + np.float32(8.0)))  # as fieldnet.normalise
FIRST_AS_REFERENCE = 0.35   # share of samples whose reference is the set-up's first frame (often the start)


class Pairs:
    """Samples drawn from pairs of frames of one set-up: (reference frame, frame now, field)."""

    def __init__(self, data: dict, kind: str, setups: np.ndarray, hidden_share: float = 0.0,
                 self_share: float = SELF_SHARE) -> None:
        self.kind = kind
        self.self_share = self_share
        self.dist = field_distances(square_centers() if kind == "sq" else point_coords())
        self.X = data[kind]                          # (S, F, n, P, P, 3) uint8
        self.lab = data[f"{kind}_lab"]               # (S, F, n) 0/1/2
        self.printed = data["printed"]               # (S, F, 49)
        self.hand = data["hand"]                     # (S, F)
        self.lean = data[f"{kind}_lean"]             # (S, n)
        self.level = data["level"]                   # (S, F, 3): each frame's light level (its squares)
        # (S, F, 49): the share of a battery at each point the camera sees (data made before it was kept: all seen)
        self.view = data.get("pt_view") if kind == "pt" else None
        self.setups = setups
        self.n_fields = self.X.shape[2]
        self.n_frames = self.X.shape[1]
        # (H, 3) set-up, frame, point of every hidden point of these set-ups (frames with a hand left out):
        # ``hidden_share`` of the samples are drawn from them (they are rare: a tall robot, a tilted view)
        self.hidden_share = hidden_share
        self.hidden = np.empty((0, 3), np.int64)
        if hidden_share > 0 and self.view is not None:
            v = self.view[setups] < HIDDEN_VIEW
            v &= ~self.hand[setups][:, :, None]
            found = np.argwhere(v)
            found[:, 0] = setups[found[:, 0]]
            self.hidden = found

    def draw(self, rng: np.random.Generator, count: int) -> dict[str, np.ndarray]:
        """Every random choice of ``count`` samples (``tensors`` is then deterministic)."""
        s = rng.choice(self.setups, count)
        i = rng.integers(0, self.n_frames, count)
        k_hidden = None
        if self.hidden_share > 0 and len(self.hidden):
            h = np.flatnonzero(rng.random(count) < self.hidden_share)
            pick = self.hidden[rng.integers(0, len(self.hidden), len(h))]
            s[h], i[h] = pick[:, 0], pick[:, 1]
            k_hidden = (h, pick[:, 2])
        j = rng.integers(0, self.n_frames - 1, count)
        j = np.where(j >= i, j + 1, j)                           # another frame than i
        first = (rng.random(count) < FIRST_AS_REFERENCE) & (i != 0)
        j = np.where(first, 0, j)
        bad = self.hand[s, j]                                    # a frame with a hand is no reference
        j = np.where(bad, np.where(i != 0, 0, 1), j)
        j = np.where(self.hand[s, j] | (j == i), -1, j)          # still none: sample without a reference
        mode = rng.random(count)
        j = np.where(mode < self.self_share, i, j)               # the frame's own other fields as examples
        j = np.where((mode >= self.self_share) & (mode < self.self_share + NO_REF_SHARE), -1, j)
        own_unknown = rng.random(count) < OWN_UNKNOWN_SHARE
        k = rng.integers(0, self.n_fields, count)
        if k_hidden is not None:
            k[k_hidden[0]] = k_hidden[1]
        return dict(s=s, i=i, j=j, k=k, own_unknown=own_unknown,
                    rank=rng.integers(0, 2, count), drop=rng.random((count, 2)) < DROP_EXAMPLE)

    def _log(self, s, f, k) -> torch.Tensor:
        """(B, P, P, 3) log colour of field k of frame f of set-up s, relative to that frame's level."""
        return _LOG_T[torch.from_numpy(self.X[s, f, k]).long()] - torch.from_numpy(self.level[s, f]).float()[:, None, None, :]

    def tensors(self, d: dict) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        s, i, j, k = d["s"], d["i"], d["j"], d["k"]
        jj = np.maximum(j, 0)
        has_ref = j >= 0
        own = has_ref & (j != i) & ~d["own_unknown"]
        ex = example_fields(self.lab[s, jj], k, self.dist, d["rank"])
        ex[d["drop"] | ~has_ref[:, None]] = -1
        parts = [self._log(s, i, k), self._log(s, jj, k)]
        parts[1][torch.from_numpy(~own)] = 0.0
        for col in (0, 1):
            e = self._log(s, jj, np.maximum(ex[:, col], 0))
            e[torch.from_numpy(ex[:, col] < 0)] = 0.0
            parts.append(e)
        x = torch.cat(parts, dim=3).permute(0, 3, 1, 2).contiguous()
        ref_state = np.where(own, self.lab[s, jj, k], REF_UNKNOWN)
        scal = torch.from_numpy(scalars(ref_state, self.lean[s, k], ex))
        lab = self.lab[s, i, k]
        if self.view is not None:
            lab = np.where((self.view[s, i, k] < HIDDEN_VIEW) & (lab < 2), UNSEEN, lab)
        y = torch.from_numpy(lab).long()
        pr = torch.from_numpy(self.printed[s, i, k] if self.kind == "pt" else np.zeros(len(s), bool)).float()
        return x, scal, y, pr


def load_data(paths: list[str], skip: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """The data parts joined, one key at a time (about the data's size in memory, not twice it),
    without the keys ``skip``. Data made before the points' view was kept counts every point as seen."""
    files = [np.load(p) for p in paths]
    try:
        keys = [k for k in files[0].files if k not in skip]
        if "pt_view" not in keys:
            keys.append("pt_view")
        data: dict[str, np.ndarray] = {}
        for k in keys:
            chunks = [f[k] if k in f.files else np.ones(f["pt_lab"].shape, np.float16) for f in files]
            data[k] = np.concatenate(chunks)
            del chunks
        return data
    finally:
        for f in files:
            f.close()


def frame_levels(data: dict) -> np.ndarray:
    """(S, F, 3) the light level of every frame, as the reader takes it (the mean log colour of its squares)."""
    sq = data["sq"]
    out = np.zeros(sq.shape[:2] + (3,), np.float32)
    for a in range(sq.shape[0]):
        for b in range(sq.shape[1]):
            out[a, b] = normalise(sq[a, b])[1]
    return out


def validation_setups(setup_seeds: np.ndarray, seed: int) -> np.ndarray:
    """Indices of the set-ups held out for validation: a tenth, chosen by each set-up's own seed
    (not by its place in the data), so that a training continued on more data (``--init``) never
    validates on a set-up the first one trained on."""
    keys = [int.from_bytes(hashlib.sha256(f"{seed}/{int(s)}".encode()).digest()[:4], "little") for s in setup_seeds]
    return np.flatnonzero(np.array(keys) % 10 == 0)


def train(kind: str, data: dict, steps: int, seed: int, out: Path, log=print, init: FieldModel | None = None,
          max_lr: float = MAX_LR, hidden_share: float = 0.0, fine: bool = False, mine: float = 0.0,
          self_share: float = SELF_SHARE) -> dict:
    """Train one net (``kind``: sq or pt) for ``steps`` steps; ``init``: go on from these weights
    (a second one-cycle schedule, its samples drawn anew: the validation set-ups stay the same);
    ``fine``: a new net takes 48-px patches (see :class:`FieldModel`); ``mine``: that share of each
    batch is the candidates the net gets most wrong (:func:`chosen`), the rest drawn at random;
    ``self_share``: that share of the samples (training and validation) is looked at as calibration
    and the reader's fine second look do (the frame's own other fields as examples, no reference of
    its own: :data:`SELF_SHARE`). Raises ValueError where the data's patch size is not the net's."""
    torch.manual_seed(seed if init is None else seed + 1000)
    # the samples drawn: a continued training's differ from the first's
    rng = np.random.default_rng(seed if init is None else [seed, 1])
    setups = np.arange(len(data["setup"]))
    val_setups = validation_setups(data["setup"], seed)
    train_setups = np.setdiff1d(setups, val_setups)
    tr = Pairs(data, kind, train_setups, hidden_share, self_share)
    va = Pairs(data, kind, val_setups, self_share=self_share)
    if hidden_share > 0:
        log(f"{kind}: {len(tr.hidden)} hidden point-frames to draw {hidden_share:.0%} of the samples from")
    model = init if init is not None else FieldModel(N_OUT[kind], WIDTHS[kind], fine)
    size = data[kind].shape[-2]
    if size != model.patch:
        raise ValueError(f"the {NAMES[kind]} data's patches are {size} px, the net takes {model.patch} px "
                         f"(data made before the point patches were 48 px goes with nets without --fine)")
    # the validation samples, as many as hold 40,000 patches of 24 px (memory: a finer patch is 4x the floats)
    val_draw = va.draw(np.random.default_rng(seed + 1), 40_000 * 24 * 24 // (size * size))
    Xv, Sv, Yv, Pv = va.tensors(val_draw)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-5)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps)
    t0 = time.time()
    tot, nb = 0.0, 0
    for step in range(steps):
        model.train()
        x, s, y, pr = tr.tensors(tr.draw(rng, BATCH * (MINE_POOL if mine > 0 else 1)))
        # mirror about the lean axis (up stays up), and a small change of light on "now" alone
        flip = torch.from_numpy(rng.random(len(y)) < 0.5)
        x[flip] = x[flip].flip(3)
        recolour(x, rng)
        x[:, :3] += torch.from_numpy(rng.normal(0, 0.08, (len(y), 3, 1, 1)).astype(np.float32))
        augment(x, rng)
        if mine > 0:
            with torch.no_grad():
                pick = chosen(excess_loss(model(x, s)[:, :3], y), BATCH, mine, rng)
            x, s, y, pr = x[pick], s[pick], y[pick], pr[pick]
        z = model(x, s)
        loss = field_loss(z[:, :3], y)
        if kind == "pt":
            m = y == 1
            if m.any():
                loss = loss + 0.5 * F.binary_cross_entropy_with_logits(z[m, 3], pr[m])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        tot += float(loss.detach())
        nb += 1
        if (step + 1) % 1000 == 0 or step + 1 == steps:
            acc = evaluate(model, Xv, Sv, Yv, Pv, kind)
            log(f"{kind} step {step + 1}/{steps}: loss {tot / max(nb, 1):.4f}; validation {acc}; {time.time() - t0:.0f} s")
            tot, nb = 0.0, 0
    out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out / f"{kind}.pt")        # kept beside the ONNX files (not shipped)
    export(model, kind, out)
    return evaluate(model, Xv, Sv, Yv, Pv, kind)


def field_loss(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Cross-entropy over (empty, occupied, covered); an unseen sample (:data:`UNSEEN`) has the
    target half empty, half occupied: the net learns to say it cannot tell."""
    return sample_losses(z, y).mean()


def sample_losses(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """(B,): each sample's cross-entropy (see :func:`field_loss`)."""
    seen = y != UNSEEN
    logp = F.log_softmax(z, dim=1)
    per = torch.empty(len(y), dtype=z.dtype)
    per[seen] = -logp[seen].gather(1, y[seen, None])[:, 0]
    per[~seen] = -0.5 * (logp[~seen, 0] + logp[~seen, 1])
    return per


def excess_loss(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """(B,): each sample's loss above the least it can have (0 for a seen field; for an unseen one,
    whose target is half empty, half occupied, log 2): how wrong the net is on it."""
    return sample_losses(z, y) - float(np.log(2.0)) * (y == UNSEEN).to(z.dtype)


def chosen(excess: torch.Tensor, count: int, share: float, rng: np.random.Generator) -> np.ndarray:
    """Indices of ``count`` of the candidates: the ``share`` of them with the largest ``excess``
    loss (online hard example mining), the rest at random from the others."""
    order = np.argsort(-excess.numpy(), kind="stable")
    hard = int(round(count * share))
    rest = rng.choice(order[hard:], count - hard, replace=False)
    return np.concatenate([order[:hard], rest])


@torch.no_grad()
def evaluate(model, Xv, Sv, Yv, Pv, kind) -> dict:
    model.eval()
    z = torch.cat([model(Xv[k:k + 2048], Sv[k:k + 2048]) for k in range(0, len(Xv), 2048)])
    res = {}
    seen = Yv != UNSEEN
    for T in (1.0, 2.0):
        p = F.softmax(z[:, :3] / T, 1)
        conf, pred = p.max(1)
        res[f"T{T:g}"] = {"acc": round(float((pred == Yv)[seen].float().mean()), 5),
                          "wrong_at_0.98": int(((pred != Yv) & (conf >= 0.98) & seen).sum()),
                          "below_0.98": round(float((conf < 0.98)[seen].float().mean()), 4)}
        if (~seen).any():   # unseen points claimed surely either way
            res[f"T{T:g}"]["unseen_claimed"] = round(float((conf >= 0.98)[~seen].float().mean()), 4)
    if kind == "pt":
        m = Yv == 1
        pp = torch.sigmoid(z[m, 3])
        t = Pv[m]
        sure = (pp > 0.9) | (pp < 0.1)
        res["side_claimed"] = round(float(sure.float().mean()), 4)
        res["side_right"] = round(float(((pp > 0.5) == (t > 0.5))[sure].float().mean()), 5) if sure.any() else None
    return res


NAMES = {"sq": "squares", "pt": "points"}


def export(model: FieldModel, kind: str, out: Path) -> None:
    """The net in its three ONNX forms: whole (``squares.onnx``), the first convolution's known
    part (``squares.known.onnx``) and the rest given that part (``squares.fast.onnx``)."""
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    name = NAMES[kind]
    x = model.split(torch.zeros(4, N_CHANNELS, model.patch, model.patch))     # split into phases where fine
    now = 3 * model.phases
    s = torch.zeros(4, N_SCALARS)
    n = {0: "n"}
    torch.onnx.export(SplitInput(model).eval(), (x, s), str(out / f"{name}.onnx"), input_names=["patch", "scalars"],
                      output_names=["logits"], dynamic_axes={"patch": n, "scalars": n, "logits": n}, dynamo=False,
                      opset_version=13)
    torch.onnx.export(KnownPart(model).eval(), (x[:, now:],), str(out / f"{name}.known.onnx"), input_names=["known"],
                      output_names=["c1"], dynamic_axes={"known": n, "c1": n}, dynamo=False, opset_version=13)
    c1 = KnownPart(model)(x[:, now:])
    torch.onnx.export(FastForm(model).eval(), (x[:, :now], c1, s), str(out / f"{name}.fast.onnx"),
                      input_names=["now", "known_c1", "scalars"], output_names=["logits"],
                      dynamic_axes={"now": n, "known_c1": n, "scalars": n, "logits": n}, dynamo=False, opset_version=13)


def from_onnx(path: Path, kind: str) -> FieldModel:
    """A FieldModel with the weights of an exported whole net (to write its other forms again)."""
    import onnx
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(path)).graph
    except Exception as exc:  # protobuf's DecodeError and friends: not an ONNX file
        raise ValueError(f"{path} is not an ONNX file ({type(exc).__name__})") from None
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in graph.initializer}
    # (the whole net is exported through a wrapper, SplitInput: its weights' names begin "model.")
    weights = {(k[len("model."):] if k.startswith("model.") else k): v for k, v in weights.items()}
    try:      # the widths as the file has them (a net widened with --widen is wider than WIDTHS)
        widths = (weights["c1.weight"].shape[0], weights["c2.weight"].shape[0], weights["c3.weight"].shape[0],
                  weights["f1.weight"].shape[0])
        model = FieldModel(N_OUT[kind], widths, fine=weights["c1.weight"].shape[1] == 4 * N_CHANNELS)
        model.load_state_dict(weights)
    except (KeyError, RuntimeError) as exc:
        raise ValueError(f"{path} is not a {kind} net of this trainer ({exc.args[0]})") from None
    return model


def with_fine(model: FieldModel) -> FieldModel:
    """``model`` made to take patches at twice the resolution: each weight of its first
    convolution is spread over the four phases of its pixel (a quarter each). On a 48-px patch
    it then computes exactly what ``model`` computes on the patch's 2x2 average (about the 24-px
    patch it was trained on), so training goes on from what the net knew, and the convolution
    can learn the fine detail."""
    if model.fine:
        raise ValueError("--fine: the net already takes 48-px patches")
    widths = (model.c1.out_channels, model.c2.out_channels, model.c3.out_channels, model.f1.out_features)
    new = FieldModel(model.f2.out_features, widths, fine=True)
    with torch.no_grad():
        new.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("c1.")}, strict=False)
        new.c1.weight.copy_(model.c1.weight.repeat_interleave(4, dim=1) / 4.0)
        new.c1.bias.copy_(model.c1.bias)
    return new


def widened(model: FieldModel, widths: tuple[int, int, int, int], seed: int) -> FieldModel:
    """A wider net that computes exactly what ``model`` computes (as Net2Net widens a net): each layer
    keeps its units and gains new ones whose incoming weights are small and random and whose outgoing
    weights are zero, so training goes on from the same function with more room."""
    old = (model.c1.out_channels, model.c2.out_channels, model.c3.out_channels, model.f1.out_features)
    if model.fine:
        raise ValueError("--widen: a net taking 48-px patches cannot be widened (widen it before --fine)")
    if any(w < o for w, o in zip(widths, old)):
        raise ValueError(f"--widen {','.join(map(str, widths))}: narrower than the net it starts from "
                         f"({','.join(map(str, old))})")
    torch.manual_seed(seed)                            # the new units' weights: reproducible from the seed
    new = FieldModel(model.f2.out_features, widths)
    a0, b0, c0, d0 = old
    c, d = widths[2], widths[3]                     # the last conv and the dense layer: f1 is rebuilt
    ns = model.f1.in_features - c0 * 9                # the scalars, after the flattened 3x3 maps
    with torch.no_grad():
        for layer in (new.c1, new.c2, new.c3, new.f1):
            layer.weight.mul_(0.1)                     # new units start small (their own init, scaled)
            layer.bias.zero_()
        new.c1.weight[:a0] = model.c1.weight
        new.c1.bias[:a0] = model.c1.bias
        new.c2.weight[:b0] = 0.0
        new.c2.weight[:b0, :a0] = model.c2.weight
        new.c2.bias[:b0] = model.c2.bias
        new.c3.weight[:c0] = 0.0
        new.c3.weight[:c0, :b0] = model.c3.weight
        new.c3.bias[:c0] = model.c3.bias
        # f1's inputs: c maps of 3x3 (channel-major), then the scalars
        w1 = torch.zeros(d, c * 9 + ns)
        w1[d0:] = new.f1.weight[d0:]
        old_w = model.f1.weight
        w1[:d0, :c0 * 9] = old_w[:, :c0 * 9]
        w1[:d0, c * 9:] = old_w[:, c0 * 9:]
        new.f1.weight.copy_(w1)
        new.f1.bias[:d0] = model.f1.bias
        new.f2.weight.zero_()
        new.f2.weight[:, :d0] = model.f2.weight
        new.f2.bias.copy_(model.f2.bias)
    return new


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", help="npz file(s) from training.fielddata")
    ap.add_argument("--out", default=str(ROOT / "vision" / "anyset" / "models"))
    ap.add_argument("--steps", type=int, default=12_000, help=f"training steps of {BATCH} samples per net")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", choices=("sq", "pt"))
    ap.add_argument("--init", metavar="DIR", help="go on training the nets whose whole ONNX files are in DIR "
                    "(e.g. the shipped ones) instead of starting from random weights")
    ap.add_argument("--hidden-share", type=float, default=0.0, help="share of the points net's samples drawn from "
                    "the points a robot hides (rare in the data; --tall makes them): 0..0.5")
    ap.add_argument("--mine", type=float, default=0.0, help="share of each batch chosen as the samples the net "
                    f"gets most wrong among {MINE_POOL} times as many candidates (online hard example mining): 0..0.9")
    ap.add_argument("--self-share", type=float, default=SELF_SHARE,
                    help="share of the samples looked at beside their own frame's other fields, no reference "
                         f"of their own, as calibration and the reader's fine second look do (default {SELF_SHARE})")
    ap.add_argument("--max-lr", type=float, default=MAX_LR, help="peak learning rate of the one-cycle schedule")
    ap.add_argument("--widen", metavar="A,B,C,D", help="with --init: go on from those nets made wider (the widths of "
                    "the three convolutions and the dense layer; the same function to start with)")
    ap.add_argument("--fine", action="store_true", help="the points net takes 48-px patches (its data made by "
                    "training.fielddata since 27 November 2026); with --init the net it goes on from is made to take "
                    "them (the same function on their 2x2 average to start with)")
    ap.add_argument("--reexport", metavar="DIR", help="write the known and fast forms of the whole nets in DIR again "
                    "(no training; --data is then not needed)")
    a = ap.parse_args(argv)
    torch.set_num_threads(int(os.environ.get("TRAIN_THREADS", "2")))
    if a.reexport:
        for kind in ("sq", "pt"):
            if not a.only or kind == a.only:
                whole = Path(a.reexport) / f"{NAMES[kind]}.onnx"
                if not whole.is_file():
                    ap.error(f"--reexport: {whole} is not a file (the whole net this writes the other forms of)")
                try:
                    model = from_onnx(whole, kind)
                except ValueError as exc:
                    ap.error(f"--reexport: {exc}")
                export(model, kind, Path(a.reexport))
        return 0
    if not a.data:
        ap.error("--data is needed to train")
    for path in a.data:                # a regular file (a FIFO or a folder is refused, never waited on)
        if not Path(path).is_file():
            ap.error(f"--data: {path} is not a file (data from training.fielddata)")
    if not 0.0 <= a.hidden_share <= 0.5:
        ap.error(f"--hidden-share {a.hidden_share}: a share from 0 to 0.5")
    if not 0.0 <= a.self_share <= 1.0 - NO_REF_SHARE:
        ap.error(f"--self-share {a.self_share}: a share from 0 to {1.0 - NO_REF_SHARE:g}")
    if not 0.0 <= a.mine <= 0.9:
        ap.error(f"--mine {a.mine}: a share from 0 to 0.9")
    if not 0 < a.max_lr < 1:
        ap.error(f"--max-lr {a.max_lr}: a learning rate between 0 and 1, e.g. 2e-3")
    widths = None
    if a.widen:
        try:
            widths = tuple(int(v) for v in a.widen.split(","))
        except ValueError:
            widths = ()
        if len(widths) != 4 or min(widths) < 1:
            ap.error(f"--widen {a.widen}: four positive widths, e.g. 24,48,64,96")
        if not a.init:
            ap.error("--widen goes with --init (the nets to make wider)")
    kinds = [k for k in ("sq", "pt") if not a.only or k == a.only]
    inits = {k: Path(a.init) / f"{NAMES[k]}.onnx" for k in kinds} if a.init else {}
    for whole in inits.values():       # before the data (minutes to load) is read
        if not whole.is_file():
            ap.error(f"--init: {whole} is not a file (the whole net to go on training)")
    starts = {}                        # the nets to go on from, made wider where asked: also before the data
    for kind, whole in inits.items():
        try:
            starts[kind] = from_onnx(whole, kind)
            if widths is not None:
                starts[kind] = widened(starts[kind], widths, a.seed)
            if a.fine and kind == "pt" and not starts[kind].fine:
                starts[kind] = with_fine(starts[kind])
        except ValueError as exc:
            ap.error(f"--init {a.init}: {exc}")
    try:
        data = load_data(a.data, skip=("pt",) if kinds == ["sq"] else ())
    except (OSError, ValueError, KeyError) as exc:
        ap.error(f"--data: cannot read the data ({exc})")
    data["level"] = frame_levels(data)
    print(f"{data['sq'].shape[0]} set-ups of {data['sq'].shape[1]} frames")
    if kinds == ["pt"]:
        del data["sq"]           # the squares' patches gave the frames' light levels: no longer needed
    for kind in kinds:
        try:
            res = train(kind, data, a.steps, a.seed, Path(a.out), init=starts.get(kind), max_lr=a.max_lr,
                        hidden_share=a.hidden_share if kind == "pt" else 0.0, fine=a.fine and kind == "pt", mine=a.mine,
                        self_share=a.self_share)
        except ValueError as exc:
            ap.error(f"--data: {exc}")
        print(f"{kind}: {res}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
