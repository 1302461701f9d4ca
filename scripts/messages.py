"""The translation catalogues (Babel): extract every string marked for translation in the
Python sources (``_``, ``ngettext``, ``N_``, ``pgettext``) and in the .kv files
(``tr._('...')``, ``tr.ngettext('...', '...', n)``), update
``companion/locale/<lang>/LC_MESSAGES/companion.po`` from them, and compile the ``.mo`` files
the app reads.

    python scripts/messages.py             # extract, update, compile (``make messages``)
    python scripts/messages.py --check     # exit 1 naming each string a catalogue lacks,
                                           # leaves untranslated or fuzzy, or whose
                                           # placeholders differ; nothing is written

The texts a player reads that the shipped game files hold (``companion/config/*.yaml``: a
Monster's power, a Power-Up card's name and text; ``CONFIG_TEXTS`` names them) are extracted
too: the screens show them through ``_()``, so a French player reads the French of the
shipped file, and a text the user changed in their own copy as they typed it.

The English catalogue translates the source to itself: a string new to it is filled in with
the source text. The French one is written by hand; a new string stays empty there (and
``--check`` and the tests fail) until it is translated. The compiled ``.mo`` files are
committed, so a checkout, the sdist and the wheel ship them without Babel.
"""

from __future__ import annotations

import ast
import copy
import io
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "companion" / "locale"
DOMAIN = "companion"
LANGUAGES = ("en", "fr")
SOURCES = ("companion", "tabletop_base")
PROJECT = "tabletop-companion"
# shipped game files: (file, list key, field) of each text a player reads
CONFIG_TEXTS = (("kotd.yaml", "monsters", "power"),
                ("danchie.yaml", "power_ups", "name"), ("danchie.yaml", "power_ups", "text"))
PLACEHOLDER = re.compile(r"\{(\w*)(?:[:!][^{}]*)?\}|%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]")


class ExtractionError(ValueError):
    """A marked string the extractor cannot read: names the file and the line."""


def extract_kv(fileobj: Any, keywords: Any, comment_tags: Any,
               options: dict[str, Any]) -> Iterator[tuple[int, str, Any, list[str]]]:
    """Babel extractor for Kivy language files: every ``tr._('text')`` and
    ``tr.ngettext('one', 'many', n)`` in a rule's value. A line that uses ``tr.`` and is not
    a readable expression is an error naming the line (nothing is skipped silently)."""
    name = options.get("filename", "<kv>")
    for lineno, line in enumerate(fileobj.read().decode("utf-8").splitlines(), 1):
        stripped = line.strip()
        if "tr." not in stripped or stripped.startswith("#"):
            continue
        _key, _sep, value = stripped.partition(":")
        try:
            tree = ast.parse(value.strip(), mode="eval")
        except SyntaxError:
            try:   # a handler may hold a statement (on_release: x = tr._('...'))
                tree = ast.parse(value.strip(), mode="exec")
            except SyntaxError as exc:
                raise ExtractionError(f"{name}:{lineno}: cannot read this rule: {exc.msg}") from None
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "tr"):
                continue
            args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
                    for a in node.args]
            if node.func.attr == "_" and args and args[0] is not None:
                yield lineno, "_", args[0], []
            elif node.func.attr == "ngettext" and len(args) >= 2 and None not in args[:2]:
                yield lineno, "ngettext", (args[0], args[1]), []


def _files() -> Iterator[tuple[Path, Any]]:
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*")):
            if "locale" in path.parts or "__pycache__" in path.parts:
                continue
            if path.suffix == ".py":
                yield path, "python"
            elif path.suffix == ".kv":
                yield path, extract_kv


def config_texts() -> Iterator[tuple[str, int, str]]:
    """(file, line, text) of each player-facing text of the shipped game files."""
    import yaml

    for name, key, field in CONFIG_TEXTS:
        path = ROOT / "companion" / "config" / name
        rel = path.relative_to(ROOT).as_posix()
        root = yaml.compose(path.read_text(encoding="utf-8"))
        if root is None:
            continue
        for k, v in root.value:
            if k.value != key:
                continue
            for item in v.value:
                for fk, fv in item.value:
                    if fk.value == field and isinstance(fv.value, str) and fv.value:
                        yield rel, fv.start_mark.line + 1, fv.value


def extract_template() -> Catalog:
    """Every marked string of the sources and of the shipped game files' texts, with where
    it is used."""
    template = Catalog(project=PROJECT, domain=DOMAIN, fuzzy=False)
    for rel, lineno, text in config_texts():
        template.add(text, None, [(rel, lineno)])
    for path, method in _files():
        rel = path.relative_to(ROOT).as_posix()
        with open(path, "rb") as f:
            for lineno, message, comments, context in extract(
                    method, f, keywords=DEFAULT_KEYWORDS, comment_tags=("TRANSLATORS:",),
                    options={"filename": rel}):
                template.add(message, None, [(rel, lineno)], auto_comments=comments,
                             context=context)
    return template


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"


def read_catalogue(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, project=PROJECT, domain=DOMAIN, fuzzy=False)
    with open(path, "rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def updated(lang: str, template: Catalog) -> Catalog:
    """The language's catalogue brought up to the template (new strings added, gone ones
    made obsolete); English fills new strings with the source text."""
    cat = read_catalogue(lang)
    # a copy: update() may share the template's messages, and English fills them in
    cat.update(copy.deepcopy(template), no_fuzzy_matching=True, update_header_comment=False)
    cat.obsolete.clear()
    cat.fuzzy = False
    if lang == "en":
        for m in cat:
            if not m.id:
                continue
            if isinstance(m.id, tuple):
                if not m.string or not any(m.string):
                    m.string = tuple(m.id)
            elif not m.string:
                m.string = m.id
    return cat


def compiled(cat: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, cat, use_fuzzy=False)
    return out.getvalue()


def shown(mo: bytes) -> tuple[dict[Any, Any], str]:
    """What a compiled catalogue makes the app show: each message (a plural one by its
    (singular, plural) pair, with a context when it has one) and its translation(s), and the
    plural rule. Not the header's other fields (which tool wrote it, when): they show nothing."""
    cat = read_mo(io.BytesIO(mo))
    texts = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)):
             m.string if isinstance(m.string, str) else tuple(m.string)
             for m in cat if m.id}
    return texts, cat.plural_forms


def mo_differences(lang: str) -> list[str]:
    """How the committed .mo differs, in what players see, from its .po compiled (a .po
    edited without `make messages`): each message it lacks, has more or shows differently,
    and the plural rule."""
    path = mo_path(lang)
    if not path.exists():
        return [f"{lang}: {path.relative_to(ROOT)} is missing: run make messages"]
    want, want_plural = shown(compiled(read_catalogue(lang)))
    have, have_plural = shown(path.read_bytes())
    out = []
    for key in sorted(want.keys() | have.keys(), key=repr):
        text = key[1] if isinstance(key[1], str) else key[1][0]
        if key not in have:
            out.append(f"{lang}: the .mo lacks {text!r}")
        elif key not in want:
            out.append(f"{lang}: the .mo has {text!r}, which the .po does not")
        elif have[key] != want[key]:
            out.append(f"{lang}: the .mo shows {have[key]!r} for {text!r}, the .po {want[key]!r}")
    if have_plural != want_plural:
        out.append(f"{lang}: the .mo's plural rule {have_plural!r} is not the .po's {want_plural!r}")
    return out


def placeholders(text: str) -> set[str]:
    return {a or b for a, b in PLACEHOLDER.findall(text)}


def problems(cat: Catalog, template: Catalog) -> list[str]:
    """What is wrong with ``cat`` against the sources: a string missing, untranslated,
    fuzzy, or whose placeholders differ from the source's."""
    out = []
    lang = str(cat.locale)
    for t in template:
        if not t.id:
            continue
        m = cat.get(t.id, t.context)
        where = f"{t.locations[0][0]}:{t.locations[0][1]}" if t.locations else "?"
        shown = t.id if isinstance(t.id, str) else t.id[0]
        if m is None:
            out.append(f"{lang}: missing ({where}): {shown!r}")
            continue
        if m.fuzzy:
            out.append(f"{lang}: fuzzy ({where}): {shown!r}")
        strings = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
        if not all(strings):
            out.append(f"{lang}: untranslated ({where}): {shown!r}")
            continue
        ids = t.id if isinstance(t.id, tuple) else (t.id,)
        want = set().union(*(placeholders(i) for i in ids))
        for s in strings:
            if placeholders(s) - want or (not isinstance(t.id, tuple) and placeholders(s) != want):
                out.append(f"{lang}: placeholders differ ({where}): {shown!r} -> {s!r}")
                break
    return out


def write(cat: Catalog, lang: str) -> None:
    po_path(lang).parent.mkdir(parents=True, exist_ok=True)
    with open(po_path(lang), "wb") as f:
        write_po(f, cat, width=100, omit_header=False, sort_output=False,
                 include_previous=False)
    mo_path(lang).write_bytes(compiled(cat))


def main(argv: Iterable[str] = ()) -> int:
    args = list(argv)
    check = "--check" in args
    template = extract_template()
    found: list[str] = []
    for lang in LANGUAGES:
        cat = updated(lang, template)
        found += problems(cat, template)
        if not check:
            write(cat, lang)
        else:
            found += mo_differences(lang)
    if not check:
        print(f"{len(template)} strings; catalogues written: "
              + ", ".join(str(po_path(lang).relative_to(ROOT)) for lang in LANGUAGES))
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
