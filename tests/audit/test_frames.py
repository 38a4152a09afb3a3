"""The frame archive of ``netzwerk run --save-frames``: naming, resume, size cap, and audit of what it kept."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.referee.audit import GAME_META, list_images, load_image, run_audit
from companion.config import FramesConfig
from companion.referee.frames import MIB, FrameArchive, FrameArchiveError, game_folder_name, start_frame_of
from companion.referee.referee import ACCEPTED


def noise(seed: int, size=(120, 160)) -> np.ndarray:
    """A frame that JPEG cannot squeeze much (so sizes are predictable)."""
    return np.random.default_rng(seed).integers(0, 256, (*size, 3), dtype=np.uint8)


def test_names_replay_the_presses_in_order(tmp_path):
    arch = FrameArchive(tmp_path, None)
    start = arch.start_game(7, noise(0), rules=["must-capture"])
    assert start.path.parent.name == "game-000007" and start.path.name == "00000-start.jpg"
    saved = [arch.save_press(noise(i), ply, attempt).path for i, (ply, attempt) in
             enumerate([(1, 1), (1, 2), (2, 1), (3, 1), (3, 2), (3, 3), (4, 1)], start=1)]
    assert [p.name for p in saved][:3] == ["00001-ply0001-try1.jpg", "00002-ply0001-try2.jpg", "00003-ply0002-try1.jpg"]
    photos = list_images(start.path.parent)  # what netzwerk audit sees: the start frame, then the presses
    assert photos == [start.path, *saved]
    meta = json.loads((start.path.parent / GAME_META).read_text())
    assert meta["game_id"] == 7 and meta["rules"] == ["must-capture"] and meta["format"] == "netzwerk-frames"
    assert load_image(saved[0]).shape == (120, 160, 3)


def test_resume_continues_the_numbering(tmp_path):
    arch = FrameArchive(tmp_path, None)
    arch.start_game(3, noise(0))
    arch.save_press(noise(1), 1)
    arch.save_press(noise(2), 2)
    again = FrameArchive(tmp_path, None)  # after a restart
    with pytest.raises(FrameArchiveError, match="no game started"):
        again.save_press(noise(3), 3)
    assert again.resume_game(4) is None  # never started here
    assert again.resume_game(3) == tmp_path / "game-000003"
    p = again.save_press(noise(3), 3).path
    assert p.name == "00003-ply0003-try1.jpg"
    assert [x.name for x in list_images(p.parent)][-1] == p.name


def test_start_game_again_starts_afresh_and_keeps_the_old_folder(tmp_path):
    """A fresh journal's game 1 meets the frames of an older game 1: they are set aside, never deleted."""
    arch = FrameArchive(tmp_path, None)
    arch.start_game(1, noise(0))
    arch.save_press(noise(1), 1)
    (tmp_path / "game-000001" / "notes.txt").write_text("the player's own file")
    arch.start_game(1, noise(2))
    assert [p.name for p in list_images(tmp_path / "game-000001")] == ["00000-start.jpg"]
    old = [p for p in tmp_path.iterdir() if p.name.startswith("game-000001-before-")]
    assert len(old) == 1
    assert sorted(p.name for p in old[0].iterdir()) == [
        ".netzwerk-game.json", "00000-start.jpg", "00001-ply0001-try1.jpg", "notes.txt"]


def test_the_size_cap_deletes_only_the_archives_own_files(tmp_path):
    frame_bytes = len(cv2.imencode(".jpg", noise(0), [cv2.IMWRITE_JPEG_QUALITY, 92])[1])
    arch = FrameArchive(tmp_path, 3.5 * frame_bytes / MIB)
    arch.start_game(1, noise(0))
    (tmp_path / "game-000001" / "notes.txt").write_text("the player's own file")
    arch.start_game(2, noise(1))
    for k in range(3):
        arch.save_press(noise(10 + k), k + 1)
    # game 1's frames went to make room; the file the archive did not write stays, and so does its folder
    assert sorted(p.name for p in (tmp_path / "game-000001").iterdir()) == ["notes.txt"]
    assert start_frame_of(tmp_path / "game-000002") is not None


def test_size_cap_drops_the_oldest_games_first_never_the_current_start_frame(tmp_path):
    frame_bytes = len(cv2.imencode(".jpg", noise(0), [cv2.IMWRITE_JPEG_QUALITY, 92])[1])
    cap_mib = 13.5 * frame_bytes / MIB  # room for 13 frames (and the small metadata files)
    arch = FrameArchive(tmp_path, cap_mib)
    for game in (1, 2, 3):
        arch.start_game(game, noise(game * 100))
        for k in range(3):
            arch.save_press(noise(game * 100 + k + 1), k + 1)
    assert [g.name for g in arch.games()] == ["game-000001", "game-000002", "game-000003"]
    assert arch.total_bytes() <= arch.cap_bytes
    arch.start_game(4, noise(400))
    dropped = []
    for k in range(3):
        dropped += arch.save_press(noise(401 + k), k + 1).dropped
    assert tmp_path / "game-000001" in dropped  # the oldest game went first, as a whole
    assert not (tmp_path / "game-000001").exists() and (tmp_path / "game-000003").exists()
    assert arch.total_bytes() <= arch.cap_bytes
    # the current game outgrows the cap alone: the other games go, then its oldest presses; its start frame stays
    for k in range(3, 20):
        arch.save_press(noise(401 + k), k + 1)
    assert [g.name for g in arch.games()] == ["game-000004"]
    assert start_frame_of(tmp_path / "game-000004") is not None
    names = [p.name for p in list_images(tmp_path / "game-000004")]
    assert names[0] == "00000-start.jpg" and names[-1] == "00020-ply0020-try1.jpg"
    assert len(names) < 21
    assert arch.total_bytes() <= arch.cap_bytes


def test_bad_input(tmp_path):
    with pytest.raises(FrameArchiveError, match="must be positive"):
        FrameArchive(tmp_path, 0)
    arch = FrameArchive(tmp_path, 10)
    with pytest.raises(FrameArchiveError, match="numpy image"):
        arch.start_game(1, "frame.jpg")  # type: ignore[arg-type]
    with pytest.raises(FrameArchiveError, match="8-bit"):
        arch.start_game(1, np.zeros((10, 10, 3), np.float32))
    arch.start_game(1, noise(0))
    with pytest.raises(FrameArchiveError, match="count from 1"):
        arch.save_press(noise(1), 0)
    assert game_folder_name("club night/3") == "game-club-night-3"
    with pytest.raises(FrameArchiveError):
        game_folder_name(-1)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be")
    with pytest.raises(FrameArchiveError, match="cannot create the frames folder"):
        FrameArchive(blocked, None).start_game(1, noise(0))


def test_from_config(tmp_path):
    assert FrameArchive.from_config(FramesConfig(save_frames=False, dir=tmp_path, max_mib=5)) is None
    arch = FrameArchive.from_config(FramesConfig(save_frames=True, dir=tmp_path, max_mib=5))
    assert arch is not None and arch.directory == tmp_path and arch.cap_bytes == 5 * MIB


def test_audit_replays_an_archived_game(default_game, tmp_path):
    """The game loop's calls, fed with the rendered photos: the archive audits like the folder it came from."""
    photos = list_images(default_game.folder)
    arch = FrameArchive(tmp_path, 64, suffix=".png")  # lossless: the very pixels of the photos
    game = arch.start_game(12, load_image(photos[0]), rules=[]).path.parent
    ply, attempt = 1, 1
    for photo, shot in zip(photos[1:], default_game.shots):
        arch.save_press(load_image(photo), ply, attempt)
        if shot.expect == ACCEPTED:
            ply, attempt = ply + 1, 1
        else:
            attempt += 1
    original = run_audit(default_game.folder, rules=default_game.rules)
    replay = run_audit(game)  # rules from the archive's metadata
    assert replay.turns == original.turns and replay.result == original.result
    assert [v.kind for v in replay.verdicts] == [v.kind for v in original.verdicts]


def _archive(default_game, folder, presses, **start_kw):
    """Archive the rendered photos as the game loop would: ``presses`` = [(photo index, ply, attempt)]."""
    photos = list_images(default_game.folder)
    arch = FrameArchive(folder, None, quality=95)
    game = arch.start_game(5, load_image(photos[0]), **start_kw).path.parent
    for index, ply, attempt in presses:
        arch.save_press(load_image(photos[index]), ply, attempt)
    return game


def test_an_undo_in_the_live_game_is_replayed(default_game, tmp_path, capsys):
    """Turn 2 accepted, taken back (undo), the board put back and the same turn confirmed again."""
    shots = default_game.shots
    accepted = [i + 1 for i, s in enumerate(shots) if s.expect == ACCEPTED]  # photo indices of plies 1, 2, 3
    game = _archive(default_game, tmp_path, [(accepted[0], 1, 1), (accepted[1], 2, 1), (accepted[1], 2, 1),
                                             (accepted[2], 3, 1)])
    res = run_audit(game)
    kinds = [v.kind for v in res.verdicts]
    assert kinds == ["start", ACCEPTED, ACCEPTED, ACCEPTED, ACCEPTED]
    redo = res.verdicts[3]
    assert redo.undone == (f"2. b: {res.turns[1]}",) and redo.ply == 2
    assert len(res.turns) == 3
    assert res.final == shots[accepted[2] - 1].after
    from companion.cli import main

    assert main(["audit", "--reader", "classic", str(game)]) == 0
    assert "(undo: 2. b: " in capsys.readouterr().out


def test_a_plain_folder_has_no_undo(default_game, tmp_path):
    """Without the archive's metadata, names are just names: the same photo twice is 'unchanged'."""
    game = _archive(default_game, tmp_path, [(1, 1, 1), (1, 1, 1)])
    (game / GAME_META).unlink()
    res = run_audit(game)
    assert [v.kind for v in res.verdicts] == ["start", ACCEPTED, "unchanged"]


def test_who_moved_first_comes_from_the_archive(default_game, tmp_path, capsys):
    from companion.cli import main
    from companion.rules.geometry import BLACK
    from companion.rules.position import Position

    black_first = Position.start(BLACK)
    game = _archive(default_game, tmp_path, [(1, 1, 1)], start_position=black_first.to_string())
    assert main(["audit", "--reader", "classic", str(game), "--json"]) == 0
    objs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert objs[0]["position"].endswith(" b")
    assert objs[1]["verdict"] == "rejected" and "during Black's turn" in objs[1]["reason"]
    assert main(["audit", "--reader", "classic", str(game), "--json", "--first", "white"]) == 0
    objs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert objs[1]["verdict"] == ACCEPTED


def test_auditing_the_frames_root_names_a_game(tmp_path, capsys):
    from companion.cli import main

    arch = FrameArchive(tmp_path, None)
    arch.start_game(1, noise(0))
    arch.start_game(2, noise(1))
    assert main(["audit", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "frames of 2 game(s)" in err and "game-000002" in err
