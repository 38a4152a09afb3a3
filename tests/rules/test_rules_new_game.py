"""A new game's options and starting side: one check (companion.rules.options.new_game_choice) for the
web page's new-game request, the game loop's inbox and the loop, with one message per fault."""

from __future__ import annotations

import pytest

from companion.rules.errors import NotationError
from companion.rules.options import OPTIONS, new_game_choice


def test_a_new_games_options_come_back_without_repeats_in_the_order_given():
    assert new_game_choice(["must-capture", "jump-enemies", "must-capture"], "black") == \
        (("must-capture", "jump-enemies"), "black")
    assert new_game_choice((), "white") == ((), "white")


@pytest.mark.parametrize("options, side, message", [
    ("stacking", "white", "options must be a list of rule option names"),
    ([1], "white", "options must be a list of rule option names"),
    (["must-capture", None], "white", "options must be a list of rule option names"),
    ({"must-capture": 1}, "white", "options must be a list of rule option names"),
    (None, "white", "options must be a list of rule option names"),
    (["fly"], "white", f"unknown rule option 'fly': known options are {', '.join(OPTIONS)}"),
    (["stacking"], "white", "the option stacking cannot be refereed from the camera yet: "),
    (["must-capture"], "purple", 'starting_side must be "white" or "black", not "purple"'),
    ([], 1, 'starting_side must be "white" or "black", not 1'),
    ([], None, 'starting_side must be "white" or "black", not null'),
    ([], object, 'starting_side must be "white" or "black", not <class'),
])
def test_a_bad_new_game_is_refused_with_one_line_naming_the_fault(options, side, message):
    with pytest.raises(NotationError) as info:
        new_game_choice(options, side)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
