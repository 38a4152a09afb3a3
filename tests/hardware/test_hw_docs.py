"""docs/wiring.md and the schematic agree with the code."""

from pathlib import Path

from hardware.pinmap import HEADER_PIN, PinMap
from hardware.schematic import main, render_svg, wiring_table

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_committed_schematic_is_the_generated_one():
    assert (DOCS / "wiring-schematic.svg").read_text(encoding="utf-8") == render_svg()


def test_schematic_shows_every_pin_of_the_map():
    pm = PinMap(new_game=9)
    svg = render_svg(pm)
    for key, pin in pm.assignments():
        assert f"GPIO{pin} ({HEADER_PIN[pin]})" in svg, key
    assert "button new game" in svg and svg.count("out ") == 32


def test_wiring_doc_holds_the_generated_table():
    doc = (DOCS / "wiring.md").read_text(encoding="utf-8")
    assert wiring_table() in doc
    for word in ("Bill of materials", "Resistor values", "330 Ω", "270 Ω", "highest output first"):
        assert word in doc


def test_schematic_script(tmp_path, capsys):
    out = tmp_path / "s.svg"
    assert main([str(out)]) == 0 and out.read_text(encoding="utf-8").startswith("<svg")
    assert main([]) == 2


def test_hardware_never_imports_the_companion():
    import ast

    root = Path(__file__).resolve().parents[2] / "hardware"
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            assert not any(n == "companion" or n.startswith("companion.") for n in names), path.name
