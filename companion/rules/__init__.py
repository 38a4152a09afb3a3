"""The rules of Netzwerk as the companion referees them (docs/rules.md).

``geometry`` (squares, points, colours), ``position`` (positions and their
string format), ``moves`` (turns and their string format), ``options`` (the
rules profile), ``engine`` (turns, energy, batteries, control, wins, outcome
enumeration), ``explain`` (the legal turn between two boards, or a diagnosis),
``errors`` (bad notation, illegal turns).
"""
