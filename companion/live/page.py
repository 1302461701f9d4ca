"""The live view's page: one HTML document with its style and script inline (no external
script, font or image), drawn from ``/events`` by the script with ``textContent`` only (no
markup from the state is ever interpreted).

Address options (``?token=...&...``):

- ``overlay=1``: for a streaming program's browser source: transparent background, large
  type, no frame; ``size=N`` sets the type's base size in pixels (12 to 200, default 40);
- ``show=roll,total,counts,game``: the parts shown (default all four);
- ``sample=1``: a sample roll in place of the last one, to place the overlay before the game.
"""

from __future__ import annotations

import html
import json

from ..i18n import _, language

PARTS = ("roll", "total", "counts", "game")

_STYLE = """
:root { --base: %(size)dpx; }
* { box-sizing: border-box; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  font-size: var(--base); color: #f2f3f5; background: %(background)s; }
main { padding: 0.5em 0.7em; }
.bar { display: flex; align-items: baseline; gap: 0.6em; flex-wrap: wrap; }
h1 { font-size: 1.1em; margin: 0 0 0.3em 0; }
.muted { color: #b9bcc4; font-size: 0.6em; }
.dice { display: flex; flex-wrap: wrap; gap: 0.35em; margin: 0.2em 0 0.3em 0; }
.die { min-width: 2.3em; height: 2.3em; padding: 0 0.25em; border-radius: 0.35em;
  display: flex; align-items: center; justify-content: center; font-weight: 700;
  font-size: 1.2em; line-height: 1.05; text-align: center; box-shadow: 0 0.06em 0.2em #0008; }
.die.long { font-size: 0.55em; min-width: 5.2em; height: 5.2em; }
.die.unsure { outline: 0.12em solid #ffa027; }
.total { font-size: 1.4em; font-weight: 800; }
.counts { font-size: 0.7em; margin-bottom: 0.4em; }
.game { margin-top: 0.4em; font-size: 0.62em; }
.sides { display: flex; flex-wrap: wrap; gap: 0.5em 2em; }
.side h2 { font-size: 1.25em; margin: 0.2em 0; }
.fig { display: inline-block; margin-right: 1em; }
.fig b { font-size: 1.6em; }
.note { display: inline-block; background: #ffffff22; border-radius: 0.3em; padding: 0 0.3em;
  margin-right: 0.3em; }
.overlay .die, .overlay .total, .overlay h2, .overlay .fig, .overlay .counts, .overlay h1,
.overlay .muted, .overlay .status { text-shadow: 0 0 0.15em #000, 0 0 0.3em #000; }
.hidden { display: none; }
"""

_SCRIPT = """
"use strict";
const TOKEN = %(token)s, SHOW = new Set(%(show)s), SAMPLE = %(sample)s, WORDS = %(words)s;
const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function show(id, on) { $(id).classList.toggle("hidden", !on); }
function draw(state) {
  const w = state.words || WORDS;
  document.documentElement.lang = state.lang || document.documentElement.lang;
  const roll = SAMPLE ? state.sample : state.roll;
  $("rolltitle").textContent = SAMPLE ? w.sample : w.last_roll;
  $("rollwhen").textContent = roll ? (roll.who || "") : w.waiting;
  const dice = $("dice");
  dice.replaceChildren();
  for (const d of (roll ? roll.dice : [])) {
    const e = el("div", "die" + (d.words.length > 3 ? " long" : "") + (d.clean ? "" : " unsure"),
                 d.words);
    e.style.background = d.rgb; e.style.color = d.ink;
    e.title = d.title;
    dice.appendChild(e);
  }
  $("total").textContent = roll && roll.total !== null ? w.total + " " + roll.total : "";
  $("counts").textContent = roll ? roll.counts.map((c) => c[1] + "\\u00d7 " + c[0]).join("   ") : "";
  const game = state.game;
  show("game", SHOW.has("game") && !!game);
  if (game) {
    $("gametitle").textContent = game.title;
    $("status").textContent = game.over && game.winner ? w.winner.replace("{name}", game.winner)
                                                       : game.status;
    const sides = $("sides");
    sides.replaceChildren();
    for (const s of game.sides) {
      const box = el("div", "side");
      box.appendChild(el("h2", "", s.name));
      for (const f of (s.figures || [])) {
        const fig = el("span", "fig");
        fig.appendChild(document.createTextNode(f.label + " "));
        fig.appendChild(el("b", "", f.value));
        if (f.of !== undefined && f.of !== null) fig.appendChild(document.createTextNode(" / " + f.of));
        box.appendChild(fig);
      }
      const notes = el("div", "");
      for (const n of (s.notes || [])) notes.appendChild(el("span", "note", n));
      box.appendChild(notes);
      sides.appendChild(box);
    }
    const lines = $("lines");
    lines.replaceChildren();
    for (const l of (game.lines || [])) lines.appendChild(el("div", "", l));
  }
  document.body.dataset.version = state.version;
}
function start() {
  const source = new EventSource("/events?token=" + encodeURIComponent(TOKEN));
  source.onmessage = (ev) => { try { draw(JSON.parse(ev.data)); } catch (e) { /* next one */ } };
}
show("rollpart", SHOW.has("roll"));
show("total", SHOW.has("total"));
show("counts", SHOW.has("counts"));
start();
"""


def page_words() -> dict[str, str]:
    """The page's own words, in the current language (sent with every state too, so that a
    language switch in the app reaches the open pages)."""
    return {"last_roll": _("Last roll"), "sample": _("Sample roll"), "total": _("Total"),
            "waiting": _("Waiting for the first roll"), "winner": _("{name} wins"),
            "title": _("Live view")}


def _js(value: object) -> str:
    """A value as a JavaScript literal that cannot end the script element."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def render(token: str, query: dict[str, list[str]]) -> bytes:
    overlay = query.get("overlay", ["0"])[0] in ("1", "true", "yes")
    try:
        size = int(query.get("size", ["40" if overlay else "28"])[0])
    except ValueError:
        size = 40 if overlay else 28
    size = max(12, min(200, size))
    wanted = [p for p in ",".join(query.get("show", [])).split(",") if p in PARTS]
    parts = wanted or list(PARTS)
    sample = query.get("sample", ["0"])[0] in ("1", "true", "yes")
    words = page_words()
    style = _STYLE % {"size": size, "background": "transparent" if overlay else "#121317"}
    script = _SCRIPT % {"token": _js(token), "show": _js(parts),
                        "sample": "true" if sample else "false", "words": _js(words)}
    e = html.escape
    doc = f"""<!DOCTYPE html>
<html lang="{e(language())}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{e(words["title"])}</title>
<style>{style}</style></head>
<body class="{'overlay' if overlay else 'page'}"><main>
<section id="rollpart">
<div class="bar"><h1 id="rolltitle">{e(words["last_roll"])}</h1>
<span class="muted" id="rollwhen">{e(words["waiting"])}</span></div>
<div class="dice" id="dice"></div>
</section>
<div class="total" id="total"></div>
<div class="counts" id="counts"></div>
<section class="game hidden" id="game">
<div class="bar"><h1 id="gametitle"></h1><span class="status" id="status"></span></div>
<div class="sides" id="sides"></div>
<div class="muted" id="lines"></div>
</section>
</main>
<script>{script}</script>
</body></html>
"""
    return doc.encode("utf-8")
