"""The field classifier: a small convolutional net that says what stands on a square or a point.

Trained on patches of many randomised designs of our renderer (``training/``,
domain randomisation), it knows nothing of any one set's look. For each field
it sees the field's patch **now** and the same field's patch in a
**reference** frame whose content is known (the calibration frame, later the
last accepted board), with what the reference showed there (empty, occupied,
or no reference), two **examples** from the reference -- the nearest other
field of the same kind known empty and the nearest known occupied (this set's
empty field and its piece, under this light: a printed circle at every point
is then plainly not a battery) -- and the lean of a standing thing at that
field (how far the camera sees its top move per unit of height). With the
field's own reference left out, the examples alone let it check a frame
against a layout it is told (calibration). It answers

* squares: log-odds of *empty*, *a robot*, *covered* (a hand or an object over it);
* points: log-odds of *empty*, *a battery*, *covered*, and the battery's
  printed side up (log-odds; meaningful only for a battery).

A points net trained on finer point patches (``training/train_fields.py
--fine``: 48 px, a small battery 8 px across instead of 4) takes them split
into their 2x2 pixel phases on the nets' 24-px grid (:func:`split_phases`);
the shipped one takes 24-px patches.

Which of the two robot colours a robot has is not the net's business: the
colours are learned per set at calibration (:mod:`vision.colours`).

Runs with OpenCV's ``cv2.dnn`` from the ONNX files in ``vision/models/``
(shipped in the package, no download); preparing the input is numpy.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources

import cv2
import numpy as np

from ..errors import VisionError
from .jit import compiled
from .patches import FINE_POINT_PATCH, PATCH, POINT_PATCH

REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN = 0, 1, 2
SQUARE_CLASSES = ("empty", "robot", "covered")
POINT_CLASSES = ("empty", "battery", "covered")
# "fine": the points net of the reader's fine second look (48-px point patches, FINE_POINT_PATCH, the
# frame's own sure points as its examples: vision/anyset/fields.py fine_look), asked only about the
# points the others leave unsure
MODEL_FILES = {"squares": "squares.onnx", "points": "points.onnx", "fine": "points-fine.onnx"}
# the same nets split at the first convolution (training/train_fields.py writes all three forms):
# its part over the known channels (reference patch, examples) is constant while the reference
# stays, so a reader computes it once per reference and each frame runs only the rest
KNOWN_FILES = {"squares": "squares.known.onnx", "points": "points.known.onnx", "fine": "points-fine.known.onnx"}
FAST_FILES = {"squares": "squares.fast.onnx", "points": "points.fast.onnx", "fine": "points-fine.fast.onnx"}
# The nets' log-odds are divided by this (above 1: a milder confidence, would-be confident misreads
# become doubtful fields at the cost of fewer claimed frames). The nets trained on pairs of frames
# of 1,200 set-ups made no confident misread on the development designs at 1 (2 was needed by the
# first, smaller data set's nets)
TEMPERATURE = float(os.environ.get("NETZWERK_FIELD_TEMPERATURE", "1.0"))
N_SCALARS = 6          # reference state one-hot (3), lean per unit height (1), an empty / occupied example given (2)
N_CHANNELS = 12        # log colour of the patch now, in the reference, of the empty and of the occupied example

# log(v + 8) of every 8-bit value (as a table: the log of a uint8 image is a look-up)
_LOG = np.log(np.arange(256, dtype=np.float32) + np.float32(8.0))


def normalise(patches: np.ndarray, level: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(n, P, P, 3) uint8 -> (n, 3, P, P) float32: log colour relative to the frame's mean log
    colour per channel (``level``: (3,), or (n, 3) one per patch; computed from these patches
    when not given), which cancels
    the light's gain and colour. Returns the array and the level used."""
    lg = cv2.LUT(patches, _LOG)
    if level is None:
        flat = lg.reshape(-1, 3)
        means = compiled("column_means")
        level = means(flat) if means is not None and flat.flags.c_contiguous and len(flat) else flat.mean(axis=0)
    lv = np.asarray(level, np.float32)
    if lv.ndim == 2:                      # one level per patch
        lv = lv[:, None, None, :]
    x = (lg - lv).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(x), level


def scalars(ref_state: np.ndarray, lean: np.ndarray, examples: np.ndarray | None = None) -> np.ndarray:
    """(n, N_SCALARS) float32: one-hot reference state, the lean, and whether an empty and an
    occupied example are given (``examples``: (n, 2) field indices, -1 for none; None: none)."""
    ref_state = np.asarray(ref_state, int)
    s = np.zeros((len(ref_state), N_SCALARS), np.float32)
    s[np.arange(len(ref_state)), ref_state] = 1.0
    s[:, 3] = np.asarray(lean, np.float32)
    if examples is not None:
        s[:, 4:6] = np.asarray(examples) >= 0
    return s


def field_distances(coords: np.ndarray) -> np.ndarray:
    """(n, n) distances between fields on the board (board units), infinite from a field to itself."""
    c = np.asarray(coords, np.float64)
    d = np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(d, np.inf)
    return d


def example_fields(states: np.ndarray, fields: np.ndarray, dist: np.ndarray, rank: np.ndarray | int = 0) -> np.ndarray:
    """(B, 2): for field ``fields[b]`` of a board whose known states are ``states[b]`` ((B, n):
    REF_EMPTY / REF_OCCUPIED / REF_UNKNOWN), the nearest other field known empty (column 0) and
    the nearest known occupied (column 1); -1 where the board has none. ``rank`` 1 takes the
    second nearest where there is one (training varies the examples so)."""
    states = np.asarray(states)
    fields = np.asarray(fields)
    rows = np.arange(len(fields))
    d = dist[fields]
    rank = np.broadcast_to(np.asarray(rank), (len(fields),))
    out = np.full((len(fields), 2), -1, np.int64)
    for col, want in enumerate((REF_EMPTY, REF_OCCUPIED)):
        cost = np.where(states == want, d, np.inf)
        order = np.argsort(cost, axis=1, kind="stable")[:, :2]
        best = np.take_along_axis(cost, order, axis=1)
        r = np.where(np.isfinite(best[:, 1]), rank, 0)
        out[:, col] = np.where(np.isfinite(best[rows, r]), order[rows, r], -1)
    return out


def _part(patches: np.ndarray | None, level: np.ndarray | None, valid: np.ndarray | None, n: int,
          shape: tuple[int, ...]) -> np.ndarray:
    if patches is None:
        return np.zeros((n, 3) + shape, np.float32)
    x, _ = normalise(patches, level)
    if valid is not None:
        x[~np.asarray(valid, bool)] = 0.0
    return x


def net_input(now: np.ndarray, ref: np.ndarray | None, level_now: np.ndarray | None = None,
              level_ref: np.ndarray | None = None, *, ref_valid: np.ndarray | None = None,
              empty_example: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
              occupied_example: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
              ) -> tuple[np.ndarray, np.ndarray]:
    """(n, N_CHANNELS, P, P): the patches now, in the reference (zeros where there is none or
    ``ref_valid`` is False), and the empty and occupied examples (each (patches, levels, valid),
    zeros where not given); and the light level the patches now were normalised with."""
    a, level = normalise(now, level_now)
    n, shape = len(a), a.shape[2:]
    b = _part(ref, level_ref, ref_valid, n, shape)
    e = _part(*empty_example, n, shape) if empty_example is not None else _part(None, None, None, n, shape)
    o = _part(*occupied_example, n, shape) if occupied_example is not None else _part(None, None, None, n, shape)
    return np.ascontiguousarray(np.concatenate([a, b, e, o], axis=1)), level


def split_phases(x: np.ndarray) -> np.ndarray:
    """(n, c, P, P) -> (n, c * k * k, PATCH, PATCH) float32 with k = P / PATCH (the nets' grid): each
    channel split into the k x k phases of its pixels (channel c * k * k + i * k + j holds the
    pixels at rows i, i + k, ... and columns j, j + k, ...; torch's ``pixel_unshuffle``). The
    points net's first convolution takes its 48-px patches so: 5x5 at stride 2 over the phases is
    a 10x10 kernel at stride 4 over the pixels, which ``cv2.dnn`` runs far more slowly."""
    x = np.asarray(x, np.float32)
    n, c, size = x.shape[0], x.shape[1], x.shape[-1]
    k = size // PATCH
    if k <= 1:
        return np.ascontiguousarray(x)
    y = x.reshape(n, c, PATCH, k, PATCH, k).transpose(0, 1, 3, 5, 2, 4)
    return np.ascontiguousarray(y.reshape(n, c * k * k, PATCH, PATCH))


@lru_cache(maxsize=None)
def _model_bytes(name: str) -> bytes:
    """The bytes of the model file ``name`` (one of the ``*_FILES`` values)."""
    folder = os.environ.get("NETZWERK_FIELD_MODELS")    # models being tried out (docs/readme-training.md)
    if folder:
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as fh:
                return fh.read()
        except OSError as exc:
            raise VisionError(f"cannot read the field classifier's model {path!r} (NETZWERK_FIELD_MODELS): "
                              f"{exc.strerror or exc}") from None
    try:
        return resources.files("vision.anyset").joinpath("models", name).read_bytes()
    except (FileNotFoundError, OSError) as exc:
        raise VisionError(f"the field classifier's model file vision/anyset/models/{name} is missing: "
                          f"reinstall the package ({exc})") from None


def _load(name: str):
    return cv2.dnn.readNetFromONNX(np.frombuffer(_model_bytes(name), np.uint8))


class FieldNet:
    """The nets (squares, points and the points' fine second look), loaded once per process, each
    whole and split at the first convolution (see :data:`KNOWN_FILES`)."""

    def __init__(self) -> None:
        self._nets = {kind: _load(name) for kind, name in MODEL_FILES.items()}
        self._known = {kind: _load(name) for kind, name in KNOWN_FILES.items()}
        self._fast = {kind: _load(name) for kind, name in FAST_FILES.items()}
        self._features_name: dict[str, str] = {}

    def _run(self, kind: str, x: np.ndarray, s: np.ndarray) -> np.ndarray:
        net = self._nets[kind]
        net.setInput(split_phases(x), "patch")
        net.setInput(s, "scalars")
        return np.asarray(net.forward(), np.float64)

    def known_part(self, kind: str, known: np.ndarray) -> np.ndarray:
        """The first convolution over the known channels ((n, N_CHANNELS - 3, P, P): the reference
        patch and the two examples), bias included: (n, C, 12, 12) float32."""
        net = self._known[kind]
        net.setInput(split_phases(known), "known")
        return net.forward()

    def with_known(self, kind: str, now: np.ndarray, known_c1: np.ndarray, s: np.ndarray) -> np.ndarray:
        """The log-odds given the patches now ((n, 3, P, P)) and the known part of the first
        convolution (:meth:`known_part`): the same as the whole net on the whole input."""
        net = self._fast[kind]
        net.setInput(split_phases(now), "now")
        net.setInput(np.ascontiguousarray(known_c1, np.float32), "known_c1")
        net.setInput(s, "scalars")
        return np.asarray(net.forward(), np.float64)

    def squares(self, x: np.ndarray, s: np.ndarray) -> np.ndarray:
        """(36, 3) log-odds (empty, robot, covered)."""
        return self._run("squares", x, s)

    def points(self, x: np.ndarray, s: np.ndarray) -> np.ndarray:
        """(49, 4) log-odds (empty, battery, covered) and the printed side's log-odds."""
        return self._run("points", x, s)

    def features(self, kind: str, x: np.ndarray, s: np.ndarray) -> np.ndarray:
        """(n, D) float64: what the net ``kind``'s last layer takes (the output of the layer before it)
        for the whole input ``x`` / ``s`` (as :meth:`squares` / :meth:`points`): a set's own last layer
        is fitted on them (:mod:`vision.anyset.sethead`)."""
        name = self._feature_tensor(kind)      # (found with a probe input of its own: before the inputs are set)
        net = self._nets[kind]
        net.setInput(split_phases(x), "patch")
        net.setInput(s, "scalars")
        return np.asarray(net.forward(name), np.float64)

    def _feature_tensor(self, kind: str) -> str:
        """The name by which ``forward`` gives what the net ``kind``'s last layer (a Gemm) takes. The
        model file names that tensor (:func:`last_gemm_input`); OpenCV's new engine (5.x) forwards to
        a tensor's name, its classic one to the name of the layer making it. Older OpenCV 5 releases
        kept the activation before the Gemm as a layer of its own, 5.1 fuses it into the Gemm before
        (whose layer name then says nothing of the tensor): the file's name is what holds across them."""
        if kind not in self._features_name:
            net = self._nets[kind]
            names = list(net.getLayerNames())
            gemms = [i for i, n in enumerate(names) if n.endswith("Gemm")]
            if not gemms or gemms[-1] == 0:
                raise VisionError(f"the {kind} model has no last fully connected layer to adapt")
            before = names[gemms[-1] - 1]
            tensor = last_gemm_input(_model_bytes(MODEL_FILES[kind]))
            candidates = []
            if tensor:
                candidates += [tensor, tensor.removesuffix("_output_0")]
            candidates += [f"{before}_output_0", before]
            size = FINE_POINT_PATCH if kind == "fine" else POINT_PATCH if kind == "points" else PATCH
            probe = np.zeros((1, N_CHANNELS, size, size), np.float32)
            for name in dict.fromkeys(candidates):
                try:
                    net.setInput(split_phases(probe), "patch")
                    net.setInput(np.zeros((1, N_SCALARS), np.float32), "scalars")
                    out = np.asarray(net.forward(name))
                except cv2.error:
                    continue
                if out.ndim != 2 or out.shape[0] != 1:
                    continue                 # not a feature vector (a layer's name shared by another tensor)
                self._features_name[kind] = name
                break
            else:
                raise VisionError(f"cannot read the {kind} model's features (tensor {tensor!r}, layer {before!r}) "
                                  f"with OpenCV {cv2.__version__}")
        return self._features_name[kind]


def _protobuf_fields(buf: bytes):
    """(field number, wire type, value) of one protobuf message's fields, in order: the value an int
    (varint, fixed) or the bytes of a length-delimited field. Raises ValueError on a broken message."""
    i, n = 0, len(buf)

    def varint() -> int:
        nonlocal i
        shift = out = 0
        while True:
            if i >= n or shift > 63:
                raise ValueError("truncated varint")
            b = buf[i]
            i += 1
            out |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return out

    while i < n:
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            yield field, wire, varint()
        elif wire == 1 or wire == 5:
            size = 8 if wire == 1 else 4
            if i + size > n:
                raise ValueError("truncated fixed field")
            yield field, wire, int.from_bytes(buf[i:i + size], "little")
            i += size
        elif wire == 2:
            size = varint()
            if i + size > n:
                raise ValueError("truncated field")
            yield field, wire, buf[i:i + size]
            i += size
        else:
            raise ValueError(f"wire type {wire}")


def last_gemm_input(model: bytes) -> str | None:
    """The name of the first input of the last Gemm node in an ONNX model's graph (ModelProto.graph
    = 7, GraphProto.node = 1, NodeProto.input = 1 / op_type = 4), None if there is none or the file
    cannot be walked. A walk of the protobuf wire format: no onnx package needed at run time."""
    try:
        graph = next((v for f, w, v in _protobuf_fields(model) if f == 7 and w == 2), None)
        if graph is None:
            return None
        found = None
        for f, w, v in _protobuf_fields(graph):
            if f != 1 or w != 2:
                continue
            inputs, op = [], None
            for nf, nw, nv in _protobuf_fields(v):
                if nw == 2 and nf == 1:
                    inputs.append(nv.decode("utf-8", "replace"))
                elif nw == 2 and nf == 4:
                    op = nv.decode("utf-8", "replace")
            if op == "Gemm" and inputs:
                found = inputs[0]
        return found
    except ValueError:
        return None


_SHARED: FieldNet | None = None


def shared_net() -> FieldNet:
    """One loaded copy per process."""
    global _SHARED
    if _SHARED is None:
        _SHARED = FieldNet()
    return _SHARED


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)
