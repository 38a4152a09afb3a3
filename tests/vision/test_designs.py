"""The synthetic camera's design axis: many Netzwerk sets, not one look (vision/designs.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from companion.cli import main
from vision.designs import (BATTERY_SHAPES, BATTERY_SYMBOLS, CLASSIC, FIELD_STYLES, MIN_ROBOT_DELTA_E, ROBOT_SHAPES, SQUARE_PRINTS, TEXTURES,
                            Design, delta_e, resolve_design, sample_design)
from vision.layout import BoardLayout
from vision.render import render

from vision_kit import START

START_STRING = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"
SMALL = dict(size=(320, 240))
DESIGNS = [sample_design(k) for k in range(200)]


def test_sampling_is_deterministic_and_varied():
    assert sample_design(17) == sample_design(17) == resolve_design(17, 0) == resolve_design("17", 0)
    assert resolve_design("random", 17) == sample_design(17)
    assert resolve_design(None, 3) is CLASSIC and resolve_design("classic", 3) is CLASSIC
    assert len(set(DESIGNS)) == len(DESIGNS)                      # different seeds, different sets
    assert len({d.summary() for d in DESIGNS[:30]}) == 30


def test_every_style_occurs_within_its_ranges():
    assert {d.robot_shape for d in DESIGNS} == set(ROBOT_SHAPES)
    assert {d.field_style for d in DESIGNS} == set(FIELD_STYLES)
    assert {d.board_texture for d in DESIGNS} == set(TEXTURES)
    assert {d.battery_symbol for d in DESIGNS} == set(BATTERY_SYMBOLS)
    assert {d.battery_shape for d in DESIGNS} == set(BATTERY_SHAPES)
    assert any(d.field_outline is not None for d in DESIGNS)
    assert any(d.battery_radius < 0.09 for d in DESIGNS) and any(d.field_radius > 0.22 for d in DESIGNS)
    assert any(d.checker_color is not None for d in DESIGNS) and any(d.checker_color is None for d in DESIGNS)
    assert {d.frame_lines for d in DESIGNS} == {0, 1, 2} and {d.labels for d in DESIGNS} == {True, False}
    assert {d.board_gloss for d in DESIGNS} == {True, False}
    assert {d.square_print for d in DESIGNS} == set(SQUARE_PRINTS)
    assert 10 < sum(d.square_print != "none" for d in DESIGNS) < 80
    # the 1984 board: large printed circles of a strong colour at the points
    assert any(d.field_style == "disc" and d.field_radius >= 0.18 and d.field_color != d.line_color for d in DESIGNS)
    assert any(d.field_color == d.line_color for d in DESIGNS if d.field_style != "none")
    for d in DESIGNS:
        assert 0.3 <= d.border <= 1.0 and 0.015 <= d.line_width <= 0.08
        assert 0.25 <= d.robot_radius <= 0.40 and 0.04 <= d.robot_height <= 0.6
        assert 0.06 <= d.battery_radius <= 0.17 and 0.03 <= d.battery_height <= 0.10
        assert d.battery_radius < d.robot_radius - 0.05                    # batteries visibly smaller
        assert d.field_style == "none" or 0.04 <= d.field_radius <= 0.3
        assert d.field_outline is None or (d.field_style == "disc" and delta_e(d.field_outline, d.field_color) >= 20)
        assert d.square_print == "none" or (0.2 <= d.square_print_size <= 0.42 and d.square_print_color is not None)
        assert delta_e(d.line_color, d.board_color) >= 30                   # the lines are visible
        assert delta_e(d.battery_color, d.board_color) >= 20                # ... and the batteries
    shapes = {d.robot_shape: d for d in DESIGNS}
    assert shapes["disc"].robot_height < 0.15 and max(d.robot_height for d in DESIGNS if d.robot_shape == "pawn") > 0.5


def test_robot_colours_always_differ():
    for d in DESIGNS:
        assert d.white_color != d.black_color
        assert delta_e(d.white_color, d.black_color) >= MIN_ROBOT_DELTA_E, d.summary()
    # which of the pair plays White is random: the lighter one is not always White
    lighter_white = [sum(d.white_color) > sum(d.black_color) for d in DESIGNS]
    assert 40 < sum(lighter_white) < 160


def test_design_checks_its_values():
    with pytest.raises(ValueError, match="robot_shape"):
        replace(CLASSIC, robot_shape="knight")
    with pytest.raises(ValueError, match="expected an integer seed"):
        resolve_design("foo", 1)
    with pytest.raises(TypeError):
        resolve_design(2.5, 1)


def test_default_design_is_classic():
    a = render(START, 5, **SMALL, noise=3.0)
    assert a.design is CLASSIC
    assert np.array_equal(a.image, render(START, 5, **SMALL, noise=3.0, design=CLASSIC).image)
    assert np.array_equal(a.image, render(START, 5, **SMALL, noise=3.0, design="classic").image)
    assert len(a.visible_points) == 49 and len(a.visible_squares) == 36


def test_designed_render_is_deterministic():
    a = render(START, 5, **SMALL, design=17)
    b = render(START, 5, **SMALL, design=17)
    assert a.design == sample_design(17) and np.array_equal(a.image, b.image)
    c = render(START, 5, **SMALL, design="random")
    assert c.design == sample_design(5)
    assert not np.array_equal(a.image, c.image)
    classic = render(START, 5, **SMALL)
    assert np.abs(a.image.astype(int) - classic.image.astype(int)).mean() > 5   # another set, another look


@pytest.mark.parametrize("shape", ROBOT_SHAPES)
def test_every_shape_renders(shape):
    d = next(d for d in DESIGNS if d.robot_shape == shape)
    frame = render(START, 11, **SMALL, design=d, tilt=25.0)
    assert frame.image.shape == (240, 320, 3) and frame.image.std() > 10
    assert all(0.0 <= v <= 1.0 for v in frame.visible_points + frame.visible_squares)


def test_a_matte_board_shows_no_glare():
    matte = replace(sample_design(3), board_gloss=False)
    assert render(START, 7, **SMALL, design=matte).conditions.glare == 0.0
    assert render(START, 7, **SMALL, design=matte, glare=0.5).conditions.glare == 0.5   # unless asked for


def test_printed_sides_are_honoured():
    sides = [i % 3 == 0 for i in range(49)]
    frame = render(START, 8, **SMALL, design=4, printed=sides)
    assert frame.battery_printed == tuple(sides)
    flipped = render(START, 8, **SMALL, design=4, printed=[not s for s in sides])
    assert flipped.battery_printed == tuple(not s for s in sides)
    assert not np.array_equal(frame.image, flipped.image)       # the symbols are drawn
    with pytest.raises(ValueError, match="49"):
        render(START, 8, **SMALL, printed=[True] * 48)


def test_visible_fractions_know_what_tall_robots_hide():
    tall = replace(sample_design(4), robot_shape="prism", robot_radius=0.4, robot_height=0.6)
    # batteries on D4 and B6, each boxed in by four tall robots; two open batteries on G1 and F2
    layout = BoardLayout.from_sets(white=[14, 15, 24, 25], black=[20, 21, 30, 31], batteries=[24, 36, 6, 12])
    for seed in (1, 6):
        frame = render(layout, seed, design=tall, tilt=25.0, markers=False, size=(640, 480))
        vp, vs = frame.visible_points, frame.visible_squares
        assert min(vp[24], vp[36]) < 0.9, (vp[24], vp[36])
        assert vp[6] == vp[12] == 1.0
        assert all(vp[i] == 1.0 for i in range(49) if i not in (24, 36))
        assert vs[5] == vs[11] == 1.0                               # far from every robot
        assert frame.point_view[24] == vp[24] and frame.point_view[6] == 1.0
    # an empty point boxed in by tall robots: no battery to hide, but one standing there would be hidden
    bare = render(BoardLayout.from_sets(white=[14, 15, 24, 25], black=[20, 21, 30, 31], batteries=[24, 6, 12]), 1,
                  design=tall, tilt=25.0, markers=False, size=(640, 480))
    assert bare.visible_points[36] == 1.0 and bare.point_view[36] < 0.9 and bare.point_view[6] == 1.0
    flat = render(layout, 1, design=replace(tall, robot_shape="disc", robot_height=0.05), tilt=25.0, markers=False,
                  size=(640, 480))
    assert min(flat.visible_points) > 0.97                          # flat checkers hide nothing


def test_cli_design_flag(tmp_path, capsys):
    out = tmp_path / "d.png"
    assert main(["vision", "render", START_STRING, "--out", str(out), "--size", "320x240", "--design", "17"]) == 0
    text = capsys.readouterr().out
    assert sample_design(17).summary() in text and text.startswith("design 17: ") and out.exists()
    assert main(["vision", "render", START_STRING, "--out", str(out), "--size", "320x240", "--seed", "4",
                 "--design", "random"]) == 0
    assert "design 4: " in capsys.readouterr().out
    assert main(["vision", "render", START_STRING, "--out", str(out), "--size", "320x240"]) == 0
    assert capsys.readouterr().out.startswith("classic: ")
    import cv2
    shots = []
    for extra in ([], ["--placement", "3"], ["--placement", "3"]):
        assert main(["vision", "render", START_STRING, "--out", str(out), "--size", "320x240", "--design", "17",
                     *extra]) == 0
        shots.append(cv2.imread(str(out)))
    assert np.array_equal(shots[1], shots[2]) and not np.array_equal(shots[0], shots[1])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["vision", "render", START_STRING, "--out", str(out), "--placement", "x"])
    assert exit_.value.code == 2 and "--placement" in capsys.readouterr().err
    for bad in ("foo", "1.5", ""):
        assert main(["vision", "render", START_STRING, "--out", str(out), "--design", bad]) == 2
        err = capsys.readouterr().err
        assert f"--design {bad!r}" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_summary_names_the_look():
    assert CLASSIC.summary().startswith("classic: ") and "prism" in CLASSIC.summary()
    d = sample_design(17)
    s = d.summary()
    assert isinstance(d, Design) and d.robot_shape in s and f"r{d.robot_radius:.2f}" in s and "batteries" in s


@pytest.mark.parametrize("kind", ["circle", "frame"])
def test_a_print_in_every_square_is_drawn(kind):
    """Some boards print a circle or a frame in each square: the renderer draws it where it says."""
    plain = replace(sample_design(3), square_print="none", board_texture="plain", texture_strength=0.15, checker_color=None)
    printed = replace(plain, square_print=kind, square_print_size=0.35, square_print_color=(20, 200, 40))
    empty = BoardLayout.from_sets(white=[], black=[35], batteries=[])
    a = render(empty, 5, design=plain, markers=False, tilt=0.0, rotation=0.0, glare=0.0, shadow=0.0)
    b = render(empty, 5, design=printed, markers=False, tilt=0.0, rotation=0.0, glare=0.0, shadow=0.0)
    H = a.homography
    for f, r in ((0, 0), (2, 3), (4, 1)):
        centre = H @ [f + 0.5, r + 0.5, 1.0]
        edge = H @ [f + 0.5 + (0.35 if kind == "frame" else 0.28), r + 0.5, 1.0]   # on the frame's line, inside the circle
        x, y = (centre[:2] / centre[2]).round().astype(int)
        ex, ey = (edge[:2] / edge[2]).round().astype(int)
        inside_changed = np.abs(b.image[y, x].astype(int) - a.image[y, x].astype(int)).sum() > 40
        edge_changed = np.abs(b.image[ey, ex].astype(int) - a.image[ey, ex].astype(int)).sum() > 40
        assert inside_changed == (kind == "circle") and edge_changed
    with pytest.raises(ValueError, match="square_print"):
        replace(plain, square_print="star")
    with pytest.raises(ValueError, match="square_print_size"):
        replace(plain, square_print="circle", square_print_size=0.9, square_print_color=(0, 0, 0))


def _disc(frame, x: float, y: float, r: float = 0.3) -> np.ndarray:
    """The pixels of ``frame`` within ``r`` squares of board point (x, y)."""
    import cv2
    h, w = frame.image.shape[:2]
    gx, gy = np.meshgrid(np.arange(w), np.arange(h))
    inv = np.linalg.inv(frame.homography)
    b = cv2.perspectiveTransform(np.stack([gx, gy], -1).reshape(-1, 1, 2).astype(np.float64), inv).reshape(h, w, 2)
    return frame.image[np.hypot(b[..., 0] - x, b[..., 1] - y) < r].astype(int)


def test_a_piece_nobody_moved_stands_where_it_stood():
    """As on a real table: between two boards, the pieces that did not move are drawn where they
    were (only the moved one is elsewhere); the classic set keeps its per-board placement."""
    before = BoardLayout.from_sets(white=range(6), black=range(30, 36), batteries=list(range(7, 14)) + list(range(35, 42)))
    after = BoardLayout.from_sets(white=[1, 2, 3, 4, 5, 14], black=range(30, 36),
                                  batteries=list(range(7, 13)) + [20] + list(range(35, 42)))
    plain = dict(size=(480, 360), noise=0.0, jpeg=100, frame=3, offset=0.25, printed=[True] * 49)
    for design, still in ((23, True), (None, False)):
        a, b = render(before, 9, design=design, **plain), render(after, 9, design=design, **plain)
        # far from the moves: the black robot on f6, the batteries on g6 and a6
        diffs = [np.abs(_disc(a, x, y) - _disc(b, x, y)).mean() for x, y in ((5.5, 5.5), (6, 5), (0, 5))]
        if still:
            assert max(diffs) < 1.0, diffs
        else:
            assert max(diffs) > 3.0, diffs
    moved = render(after, 9, design=23, **plain)
    assert np.abs(_disc(moved, 0.5, 0.5) - _disc(render(before, 9, design=23, **plain), 0.5, 0.5)).mean() > 10  # a1 emptied



def test_a_position_set_up_anew_sets_every_piece_down_anew():
    """``placement``: a position set up from scratch puts every piece down somewhere else (the same
    placement number twice puts them in the same places); the classic set places per board anyway,
    and a placement that is no int is refused."""
    board = BoardLayout.from_sets(white=range(6), black=range(30, 36), batteries=list(range(7, 14)) + list(range(35, 42)))
    plain = dict(size=(480, 360), noise=0.0, jpeg=100, frame=3, offset=0.25, printed=[True] * 49, design=23)
    kept = render(board, 9, **plain)
    anew = render(board, 9, placement=1, **plain)
    again = render(board, 9, placement=1, **plain)
    other = render(board, 9, placement=2, **plain)
    assert np.array_equal(anew.image, again.image)
    fields = [(x + 0.5, 0.5) for x in range(6)] + [(x + 0.5, 5.5) for x in range(6)]
    # robots shift by up to their offset: most of the twelve discs change, in both new placements
    for frame in (anew, other):
        moved = sum(np.abs(_disc(kept, x, y) - _disc(frame, x, y)).mean() > 3.0 for x, y in fields)
        assert moved >= 6, moved
    assert not np.array_equal(anew.image, other.image)
    classic = dict(plain, design=None)
    assert np.array_equal(render(board, 9, **classic).image, render(board, 9, placement=5, **classic).image)
    for bad in ("1", 1.5, True):
        with pytest.raises(TypeError, match="placement"):
            render(board, 9, placement=bad, **plain)

def test_some_designs_give_the_blank_side_a_colour_of_its_own():
    """A token with a painted face, a stone with a sticker: the blank side need not be the printed
    side's colour. The start frame shows printed sides only, so the reader never learns it."""
    other = [d for d in DESIGNS if d.blank_color is not None]
    assert 30 < len(other) < 100
    assert sum(delta_e(d.blank_color, d.battery_color) >= 18 for d in other) >= 0.9 * len(other)
    assert "blank side" in other[0].summary() and "blank side" not in CLASSIC.summary()
    for shape in BATTERY_SHAPES:
        look = replace(sample_design(3), board_texture="plain", texture_strength=0.1, checker_color=None,
                       square_print="none", field_style="none", battery_shape=shape, battery_color=(200, 30, 30),
                       battery_radius=0.15, symbol_color=(250, 250, 250), blank_color=(20, 200, 40))
        points = [17, 24, 31]                   # C3, D4, D5: near the middle, seen from almost straight above
        layout = BoardLayout.from_sets(white=[], black=[35], batteries=points)
        kw = dict(design=look, markers=False, tilt=0.0, rotation=0.0, glare=0.0, shadow=0.0, offset=0.0, size=(640, 480))
        printed = render(layout, 5, printed=[True] * 49, **kw)
        blank = render(layout, 5, printed=[False] * 49, **kw)
        plain = render(layout, 5, printed=[False] * 49, **{**kw, "design": replace(look, blank_color=None)})
        for p in points:
            x, y = p % 7, p // 7
            for frame, green in ((printed, False), (blank, True), (plain, False)):
                top = _disc(frame, x, y, 0.04).mean(axis=0)        # green is channel 1 in RGB and BGR alike
                assert (top[1] > top[0] + 60) == green, (shape, p, top)
