"""The rules of Netzwerk as the companion referees them (docs/rules.md).

``geometry`` (squares, points, colours), ``masks`` (the board as bitmasks),
``position`` (positions and their string format), ``moves`` (turns and their
string format), ``options`` (the rules profile), ``robot_moves`` (a single
robot move: where it goes, what it passes, its cost), ``energy`` (where a
robot draws energy, whether a robot phase can pay), ``control`` (who may move
a battery), ``engine`` (the robot phase, battery moves, turns, wins, outcome
enumeration), ``explain`` (the legal turn between two boards, or a
diagnosis), ``sides`` (the batteries' printed and blank sides against the
energy a turn used, R-23: a players' aid, never a rule), ``errors`` (bad
notation, illegal turns).
"""
