"""French and English: the catalogues hold every string of the code (extracted afresh here,
from the Python sources and the .kv files), translated, not fuzzy, with the source's
placeholders; plural forms; the language switch; the settings file."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path

import pytest

from companion import i18n, settings

ROOT = Path(__file__).resolve().parent.parent


def _messages():
    spec = importlib.util.spec_from_file_location("messages_tool", ROOT / "scripts" / "messages.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["messages_tool"] = module
    spec.loader.exec_module(module)
    return module


messages = _messages()


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


@pytest.fixture(scope="module")
def template():
    return messages.extract_template()


def test_extraction_reads_python_and_kv(template):
    ids = {m.id for m in template if m.id}
    assert "Saved games" in ids                                  # home.kv: tr._('Saved games')
    assert ("Throw {count} die (simulated)", "Throw {count} dice (simulated)") in ids   # kv ngettext
    assert "Pick two different characters" in ids                # a screen's Python
    assert "{off}'s Heat is already used this round (once per round)" in ids  # a rule's refusal
    assert len(ids) > 1000


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_catalogue_is_complete_translated_and_not_fuzzy(template, lang):
    """Fails naming every string of the code that the catalogue lacks, leaves untranslated
    or fuzzy, or whose placeholders differ from the source's: run `make messages`, then
    translate what it names."""
    cat = messages.updated(lang, template)
    problems = messages.problems(cat, template)
    assert not problems, f"{len(problems)} problems, e.g.:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_compiled_catalogue_is_the_po_file(lang):
    """The shipped .mo shows what the .po says (a .po edited without `make messages` fails):
    the same messages, translations and plural rule, whichever Babel version compiled it
    (the bytes of its header differ from one version to the next)."""
    assert messages.mo_differences(lang) == []
    texts, plural = messages.shown(messages.mo_path(lang).read_bytes())
    assert len(texts) > 1000 and "nplurals=2" in plural


def test_a_stale_compiled_catalogue_is_named(tmp_path, monkeypatch):
    """The check itself: a translation changed in the .po only, a message the .po no longer
    has, and a header written by another tool version (which is no difference)."""
    from babel.messages.catalog import Catalog

    po = messages.read_catalogue("fr")
    cat = Catalog(locale="fr", domain=messages.DOMAIN, fuzzy=False)
    cat.plural_forms  # noqa: B018  (the locale's rule, as the real catalogue has it)
    for m in list(po)[1:4]:
        cat.add(m.id, m.string, context=m.context)
    first = list(po)[1]
    mo_dir = tmp_path / "fr" / "LC_MESSAGES"
    mo_dir.mkdir(parents=True)
    stale = Catalog(locale="fr", domain=messages.DOMAIN, fuzzy=False)
    for m in list(po)[1:4]:
        stale.add(m.id, "ancienne traduction" if m.id == first.id else m.string, context=m.context)
    stale.add("Gone from the code", "Disparu")
    monkeypatch.setattr(messages, "LOCALE", tmp_path)
    monkeypatch.setattr(messages, "read_catalogue", lambda lang: cat)
    (mo_dir / "companion.mo").write_bytes(messages.compiled(stale))
    found = "\n".join(messages.mo_differences("fr"))
    assert "the .mo shows 'ancienne traduction'" in found
    assert "the .mo has 'Gone from the code', which the .po does not" in found
    # the same messages written with another header (another tool, another date): no difference
    cat.header_comment = "another tool"
    cat.add("", "Generated-By: Another 9.9\n")
    (mo_dir / "companion.mo").write_bytes(messages.compiled(cat))
    assert messages.mo_differences("fr") == []


def test_a_problem_is_named_by_the_checker(template):
    """The checker itself: a missing, an untranslated, a fuzzy and a mangled string."""
    from babel.messages.catalog import Catalog

    cat = Catalog(locale="fr")
    some = [m for m in template if m.id and isinstance(m.id, str) and "{" in m.id][:3]
    cat.add(some[0].id, "")                                  # untranslated
    cat.add(some[1].id, "traduit", flags=["fuzzy"])          # fuzzy (and placeholders lost)
    cat.add(some[2].id, "sans les accolades")                # placeholders lost
    found = "\n".join(messages.problems(cat, template))
    assert "untranslated" in found and "fuzzy" in found and "placeholders differ" in found
    assert "missing" in found                                # every other string


def test_french_plural_forms_and_english_ones():
    assert "nplurals=2; plural=(n > 1)" in messages.read_catalogue("fr").plural_forms
    i18n.set_language("fr")
    one, many = (i18n.ngettext("{count} action set per turn", "{count} action sets per turn", n)
                 for n in (0, 2))
    assert one != many                      # French: 0 takes the singular...
    assert one == i18n.ngettext("{count} action set per turn", "{count} action sets per turn", 1)
    i18n.set_language("en")                 # ...English: the plural
    assert i18n.ngettext("{count} action set per turn", "{count} action sets per turn", 0) == \
        "{count} action sets per turn"


def test_switch_speaks_french_then_english_again():
    i18n.set_language("fr")
    assert i18n.language() == "fr"
    assert i18n._("Saved games") != "Saved games"
    i18n.set_language("en")
    assert i18n._("Saved games") == "Saved games"


def test_a_rule_refuses_in_the_language_spoken():
    """A refusal is built when it is raised: in French after a switch."""
    from companion.errors import IllegalActionError
    from companion.games import tekken
    from tests.tekken_support import new

    state = new()
    i18n.set_language("fr")
    with pytest.raises(IllegalActionError) as fr:
        tekken.RULES.apply(state, "tekken.rage_chosen", {"player": 0, "card": 7})
    i18n.set_language("en")
    with pytest.raises(IllegalActionError) as en:
        tekken.RULES.apply(state, "tekken.rage_chosen", {"player": 0, "card": 7})
    assert str(en.value) == "the Rage card must be 0 or 1, got 7"
    assert str(fr.value) != str(en.value) and "7" in str(fr.value)


@pytest.mark.gui
def test_kv_translator_calls_the_rules_bound_to_it_on_a_switch(app):
    """``tr._`` in a kv rule: Kivy binds the rule to ``tr``; a switch re-evaluates it (in the
    app's window: a Label made before it would open Kivy's window at the wrong size)."""
    from kivy.lang import Builder

    label = Builder.load_string("#:import tr companion.i18n.tr\n"
                                "Label:\n    text: tr._('Saved games') + '!'\n")
    assert label.text == "Saved games!"
    i18n.set_language("fr")
    assert label.text == i18n._("Saved games") + "!" != "Saved games!"
    i18n.set_language("en")
    assert label.text == "Saved games!"


@pytest.mark.parametrize("env, expected", [
    ({"LANGUAGE": "fr_FR:en"}, "fr"), ({"LANG": "fr_CA.UTF-8"}, "fr"),
    ({"LANG": "de_DE.UTF-8"}, "en"), ({"LC_ALL": "en_GB.UTF-8"}, "en"),
])
def test_system_language_with_english_fallback(monkeypatch, env, expected):
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert i18n.system_language() == expected
    assert i18n.set_language("system") == expected


def test_an_unknown_language_is_refused_by_name():
    with pytest.raises(ValueError, match="'de' is not one the app speaks"):
        i18n.set_language("de")


def test_ordinals_follow_the_language():
    assert [i18n.ordinal(n) for n in (1, 2, 3, 4, 11, 22)] == ["1st", "2nd", "3rd", "4th", "11th", "22nd"]
    i18n.set_language("fr")
    assert [i18n.ordinal(n) for n in (1, 2)] == ["1er", "2e"]


def test_kv_extractor_names_the_line_it_cannot_read():
    good = io.BytesIO(b"<X>:\n    text: tr._('Hello') if a else tr.ngettext('one', 'many', n)\n")
    assert [m[2] for m in messages.extract_kv(good, None, None, {})] == ["Hello", ("one", "many")]
    bad = io.BytesIO(b"<X>:\n    text: tr._('Hello'\n")
    with pytest.raises(messages.ExtractionError, match=r"bad\.kv:2: cannot read"):
        list(messages.extract_kv(bad, None, None, {"filename": "bad.kv"}))


# -- the settings file ---------------------------------------------------------------------

def test_settings_remember_the_language(tmp_path):
    assert settings.load(tmp_path).language == "system"          # no file: the default
    settings.save(tmp_path, settings.Settings(language="fr"))
    assert settings.load(tmp_path).language == "fr"
    assert json.loads((tmp_path / "settings.json").read_text()) == {"language": "fr"}


@pytest.mark.parametrize("text, logged", [
    ("{", "not settings this app wrote"), ('{"language": "de"}', "language: 'de' is not"),
    ('{"colour": 1}', "colour: unknown key"), ("[]", "not a JSON object"),
])
def test_damaged_settings_are_named_in_the_log_and_the_defaults_used(tmp_path, caplog, text,
                                                                     logged):
    (tmp_path / "settings.json").write_text(text)
    assert settings.load(tmp_path).language == "system"
    assert logged in caplog.text and "settings.json" in caplog.text


def test_shipped_game_texts_are_extracted_and_shown_translated(template):
    """A Monster's power and a Power-Up card's text come from the shipped game files: they
    are in the catalogue, and French shows them in French."""
    ids = {m.id for m in template if m.id}
    assert "Groups of 2 or 3 POWER faces can stand for any other face." in ids
    assert "Choose 1 Tile from another Player's Board and return it to the supply tray." in ids
    i18n.set_language("fr")
    assert i18n._("Groups of 2 or 3 POWER faces can stand for any other face.").startswith("Des groupes")


def test_a_miss_is_recorded_only_while_recording():
    i18n.set_language("fr")
    misses = i18n.record_misses()
    try:
        assert i18n._("Undo") == "Annuler"
        i18n._("A sentence nobody translated")
        i18n.ngettext("{n} apple", "{n} apples", 2)
        assert misses == {"A sentence nobody translated", "{n} apple"}
    finally:
        i18n.stop_recording()
    i18n._("Another sentence nobody translated")
    assert "Another sentence nobody translated" not in misses


def test_no_text_is_compared_in_kv_and_no_literal_hides_from_extraction():
    """A .kv rule that compares displayed text breaks in another language; a literal
    ``_('...')`` inside an f-string is not seen by the extractor (Babel does not read
    f-string expressions), so it would never be translated."""
    import re

    found = []
    # the displayed text compared, or handed to the logic as if it were an identifier
    kv_compare = re.compile(r"(==|!=)\s*tr\._\(|\btext\s*(==|!=|in\b)|(==|!=)\s*self\.text\b"
                            r"|on_release:.*\(self\.text\)|on_release:.*=\s*self\.text\b")
    # a literal lookup anywhere inside an f-string's braces (the inner quotes differ)
    hidden = re.compile(r"""\{\s*(_|ngettext|pgettext)\(\s*['"]"""
                        r"""|\bf"[^"\n]*\{[^}"]*\b(_|ngettext|pgettext)\(\s*'"""
                        r"""|\bf'[^'\n]*\{[^}']*\b(_|ngettext|pgettext)\(\s*" """.rstrip())
    for path in sorted((ROOT / "companion").rglob("*")):
        if path.suffix not in (".kv", ".py"):
            continue
        pattern = kv_compare if path.suffix == ".kv" else hidden
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line) and (path.suffix == ".kv" or re.search(r"\bf['\"]", line)):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_french_tells_the_tower_from_a_turn_and_a_lap():
    """"Tour" is a turn in French: the dice tower is always "tour à dés" and a lap "tour de
    piste", so that one screen never uses the word for two things."""
    import re

    cat = messages.read_catalogue("fr")
    bare = re.compile(r"\b[Tt]ours?\b(?!\s*à dés| de piste)")
    wrong = []
    for m in cat:
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strs = m.string if isinstance(m.string, tuple) else (m.string,)
        if not m.id:
            continue
        if any("tower" in i.lower() for i in ids) and any(bare.search(s or "") for s in strs):
            wrong.append(f"{ids[0]!r} -> {strs[0]!r}")
        if any(re.search(r"\blaps?\b", i, re.I) for i in ids) and \
                not any(re.search(r"\btours? de piste\b|\bLap\b", s or "", re.I) for s in strs):
            wrong.append(f"{ids[0]!r} -> {strs[0]!r}")
    assert not wrong, "\n".join(wrong)


def test_a_language_switch_survives_rules_let_go_of_while_it_runs():
    # a widget collected while the switch walks the recorded rules lets go of its rule (Kivy
    # calls unbind_uid from the collector): the switch must not trip over the change
    import gc

    from companion.i18n import _make_tr

    tr = _make_tr()
    called = []
    uids = [tr.fbind("_", lambda *a, i=i: called.append(i)) for i in range(2000)]
    gone = list(reversed(uids))

    def collector_lets_go(phase, info):
        if phase == "start" and gone:
            tr.unbind_uid("_", gone.pop())

    threshold = gc.get_threshold()
    gc.callbacks.append(collector_lets_go)
    gc.set_threshold(1)
    try:
        tr.switched()
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(collector_lets_go)
    assert called and len(called) <= 2000
