"""The house has no import circles (issue 27): no module of the app, the tower link, the
vision code or the shared base imports, directly or through others, a module that imports
it back, whether at the top or inside a function (a lazy import only hides a circle).

The graph is read from the sources (``ast``), so nothing is imported or run."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "firmware_bridge", "vision", "tabletop_base")


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """The project's modules ``path`` imports (a name imported from a package counts as its
    module when it is one, else as the package)."""
    me = module_of(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:
                full = f"{target}.{a.name}"
                if full in modules:
                    out.add(full)
                elif target in modules:
                    out.add(target)
    # a package's own __init__ is not a dependency of its modules worth a circle
    return {m for m in out if m != me and not me.startswith(m + ".")}


def graph() -> dict[str, set[str]]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
             if "firmware" not in p.relative_to(ROOT).parts[1:-1]]
    modules = {module_of(p) for p in files}
    return {module_of(p): imports(p, modules) for p in files}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def test_the_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back() -> None:
    g = graph()
    assert "companion.registry" in g and "companion.files" in g["companion.registry"]
    found = circles(g)
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_link_is_split_by_where_it_runs() -> None:
    """firmware_bridge's sides (issue 27): ``wire`` is what both share and imports neither;
    the tower never imports the tablet's side or the test tools; the tablet's side imports the
    tower only where the ``sim://`` handler opens a simulated tower in-process; and nothing the
    app or the tower runs imports the test tools (the wheel leaves them out)."""
    g = graph()
    fb = "firmware_bridge"
    assert f"{fb}.wire.codec" in g and f"{fb}.tower.camera_tower" in g and f"{fb}.host.link" in g
    bad = []
    for module, deps in sorted(g.items()):
        for dep in sorted(deps):
            if _under(module, f"{fb}.wire") and _under(dep, fb) and not _under(dep, f"{fb}.wire"):
                bad.append((module, dep))
            if _under(module, f"{fb}.tower") and (_under(dep, f"{fb}.host")
                                                  or _under(dep, f"{fb}.testing")):
                bad.append((module, dep))
            if (_under(module, f"{fb}.host") and _under(dep, f"{fb}.tower")
                    and module != f"{fb}.host.urlhandlers.protocol_sim"):
                bad.append((module, dep))
            if _under(dep, f"{fb}.testing") and not (_under(module, f"{fb}.testing")
                                                     or module == f"{fb}.cli"):
                bad.append((module, dep))
    assert bad == [], "imports across the link's sides:\n" + "\n".join(f"{a} -> {b}" for a, b in bad)
