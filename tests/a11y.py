"""axe-core (from npm: ``make a11y`` installs it into tests/axe/node_modules) run in the browser tests' Chromium on
a page or a part of it: no serious or critical violation is allowed; every result is kept beside the page's
screenshot as ``<name>.axe.json`` (each rule that failed, its impact and the elements it named).

The course's pages refuse every script by their Content-Security-Policy: axe-core is evaluated by the browser's
driver (Playwright's ``evaluate``), which that policy does not govern, so the pages are audited as served.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

AXE = Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")


def require_axe() -> None:
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed at {AXE}: run `make a11y` (npm ci in tests/axe)")


def audit(page, folder: Path, name: str, include: list[str] | None = None) -> list[dict]:
    """axe-core's violations on ``page`` (only within the CSS selectors ``include``, when given), written to
    ``folder/<name>.axe.json``; returns the serious and critical ones (each: rule, impact, help, elements)."""
    require_axe()
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))  # evaluated by the driver: a page's CSP does not apply
    raw = page.evaluate("""async (include) => {
        const context = include ? { include: include.map((s) => [s]) } : document;
        const result = await axe.run(context, { resultTypes: ['violations'] });
        return result.violations.map((v) => ({ rule: v.id, impact: v.impact, help: v.help,
            elements: v.nodes.map((n) => n.target.join(' ')).slice(0, 10) }));
    }""", include)
    folder.mkdir(parents=True, exist_ok=True)
    report = {"page": page.url, "include": include, "axe": AXE.parent.name, "violations": raw}
    (folder / f"{name}.axe.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    return [v for v in raw if v["impact"] in BLOCKING]


def assert_accessible(page, folder: Path, name: str, include: list[str] | None = None) -> None:
    blocking = audit(page, folder, name, include)
    assert not blocking, f"axe-core on {name}: " + "; ".join(
        f"{v['rule']} ({v['impact']}): {v['help']} at {', '.join(v['elements'])}" for v in blocking)
