"""The systemd unit: ``systemd-analyze verify`` clean, ``security --offline`` exposure <= 1.5 with the web page let through.

The unit's ExecStart binary (/opt/netzwerk/.venv/bin/netzwerk) exists only on an
installed Pi, and ``verify`` rightly fails on a missing binary. So ``verify`` runs
twice: on the unit as shipped, where the missing ExecStart binary must be the ONLY
complaint, and on a copy identical except that ExecStart names an existing program
(the venv's ``netzwerk``), which must verify with no output at all.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "netzwerk-companion.service"
ANALYZE = shutil.which("systemd-analyze") or ("/usr/bin/systemd-analyze" if Path("/usr/bin/systemd-analyze").exists() else None)
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed on this machine")

EXEC_START = "ExecStart=/opt/netzwerk/.venv/bin/netzwerk run --config /etc/netzwerk/config.toml"


def unit_settings() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            out.setdefault(key, []).append(value)
    return out


def installed_copy(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at an existing program; nothing else changed."""
    text = UNIT.read_text()
    assert text.count(EXEC_START) == 1
    exe = Path(sys.executable).with_name("netzwerk")
    if not exe.exists():
        exe = Path(sys.executable)
    copy = tmp_path / UNIT.name
    copy.write_text(text.replace(EXEC_START, f"ExecStart={exe} run --config /etc/netzwerk/config.toml"))
    return copy


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ANALYZE, *args], capture_output=True, text=True, timeout=60)


def test_the_unit_says_what_the_issue_asks() -> None:
    s = unit_settings()
    assert s["Type"] == ["notify"] and s["NotifyAccess"] == ["main"]
    assert s["Restart"] == ["on-failure"] and s["WatchdogSec"]
    assert s["User"] == ["netzwerk"] and s["SupplementaryGroups"] == ["gpio video"]
    assert s["StateDirectory"] == ["netzwerk"] and s["ConfigurationDirectory"] == ["netzwerk"]
    assert s["ExecStart"] == [EXEC_START.split("=", 1)[1]]
    assert s["ProtectSystem"] == ["strict"]
    assert s["RestrictAddressFamilies"] == ["AF_UNIX AF_NETLINK AF_INET AF_INET6"]  # the web page: TCP
    # ... on its port only, and only with the local networks
    assert s["SocketBindAllow"] == ["tcp:8080"] and s["SocketBindDeny"] == ["any"]
    assert s["IPAddressDeny"] == ["any"] and "0.0.0.0/0" not in s["IPAddressAllow"][0]
    assert "PrivateNetwork" not in s  # the page is served on the host's network
    from companion.config import WebConfig, load_config

    assert s["SocketBindAllow"] == [f"tcp:{WebConfig().port}"]  # the config's default port is the unit's
    assert load_config(ROOT / "systemd" / "config.toml").web.port == WebConfig().port
    assert s["RestartPreventExitStatus"] == ["2"]  # a config error stops the unit, no restart loop
    assert s["CapabilityBoundingSet"] == [""] and s["NoNewPrivileges"] == ["yes"]
    # Camera and GPIO still reachable behind DevicePolicy=closed.
    allowed = " ".join(s["DeviceAllow"])
    for dev in ("char-gpiochip", "/dev/gpiomem", "char-video4linux", "char-media", "char-dma_heap"):
        assert dev in allowed
    assert "PrivateDevices" not in s  # it would hide /dev/video* and /dev/gpiochip*


@needs_analyze
def test_verify_is_clean(tmp_path: Path) -> None:
    shipped = run("verify", str(UNIT))
    complaints = [l for l in (shipped.stdout + shipped.stderr).splitlines() if l.strip()]
    assert complaints == [
        f"{UNIT.name}: Command /opt/netzwerk/.venv/bin/netzwerk is not executable: No such file or directory"
    ], complaints
    copy = run("verify", str(installed_copy(tmp_path)))
    assert copy.returncode == 0, copy.stdout + copy.stderr
    assert (copy.stdout + copy.stderr).strip() == "", copy.stdout + copy.stderr


@needs_analyze
def test_security_exposure_at_most_1_5() -> None:
    result = run("security", "--offline=true", str(UNIT))  # the unit as shipped
    assert result.stderr.strip() == "", result.stderr  # no warnings about the unit
    text = result.stdout
    m = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", text)
    assert m, text
    exposure = float(m.group(1))
    assert exposure <= 1.5, text


SYSUSERS = shutil.which("systemd-sysusers")


@pytest.mark.skipif(SYSUSERS is None, reason="systemd-sysusers is not installed on this machine")
def test_sysusers_file_creates_the_user_in_gpio_and_video(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    result = subprocess.run(
        [SYSUSERS, f"--root={tmp_path}", "--dry-run", str(ROOT / "systemd" / "netzwerk.sysusers")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout + result.stderr
    assert "Creating user 'netzwerk'" in out
    assert "Failed" not in out and "ignoring" not in out.lower()
    text = (ROOT / "systemd" / "netzwerk.sysusers").read_text()
    assert re.search(r"^m netzwerk gpio$", text, re.M) and re.search(r"^m netzwerk video$", text, re.M)


def documented_drop_in() -> str:
    """The drop-in for another port, as docs/readme-web.md gives it."""
    doc = (ROOT / "docs" / "readme-web.md").read_text()
    m = re.search(r"<!-- the drop-in [^\n]*-->\n```ini\n(.*?)```", doc, re.S)
    assert m, "docs/readme-web.md lost its drop-in for another port"
    return m.group(1)


def test_the_documented_drop_in_allows_the_config_s_port_instead_of_8080() -> None:
    lines = [line for line in documented_drop_in().splitlines() if line and not line.startswith("#")]
    assert lines[0] == "[Service]"
    assert lines[1:] == ["SocketBindAllow=", "SocketBindAllow=tcp:8090"]  # 8080 cleared, then the new port
    assert "port = 8090" in (ROOT / "docs" / "readme-web.md").read_text()  # the config's side of the same step


@needs_analyze
def test_the_unit_with_the_documented_drop_in_loads_clean_and_stays_under_the_bar(tmp_path: Path) -> None:
    copy = installed_copy(tmp_path)
    drop_ins = tmp_path / f"{UNIT.name}.d"
    drop_ins.mkdir()
    (drop_ins / "override.conf").write_text(documented_drop_in())
    (drop_ins / "zz-check.conf").write_text("[Service]\nNoSuchKey=1\n")  # proves the drop-ins are read
    result = run("security", "--offline=true", str(copy))
    warnings = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "zz-check.conf" in warnings[0] and "NoSuchKey" in warnings[0], warnings
    m = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", result.stdout)
    assert m and float(m.group(1)) <= 1.5, result.stdout
