"""The page around an exported session: markup, style and the script that scrubs through the steps.

Self-contained by construction: a Content-Security-Policy of ``default-src 'none'`` (images only as
``data:`` URLs, the inline style and script only) keeps the browser from fetching anything, and the
script writes every recorded text with ``textContent``, never as markup, so whatever a model answered
is shown as text.
"""

from __future__ import annotations

import html
import json
from typing import Any

__all__ = ["page"]

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

_STYLE = """
:root {
  --ink: #111827; --muted: #4b5563; --line: #d1d5db; --bg: #f9fafb; --card: #fff;
  --ok: #15803d; --bad: #b91c1c; --accent: #1d4ed8;
}
* { box-sizing: border-box; }
body {
  margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--bg);
}
header { padding: 14px 20px; background: var(--card); border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 4px; font-size: 20px; }
header .meta { color: var(--muted); font-size: 13px; }
.bar {
  display: flex; align-items: center; gap: 10px; padding: 10px 20px; background: var(--card);
  border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 1;
}
.bar input[type=range] { flex: 1; }
.bar button {
  font: inherit; padding: 4px 12px; border: 1px solid var(--line); border-radius: 6px;
  background: #fff; cursor: pointer;
}
.bar a { color: var(--accent); font-size: 13px; }
main { display: grid; grid-template-columns: minmax(280px, 520px) 1fr; gap: 20px; padding: 20px; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
.board img { width: 100%; height: auto; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
.card {
  background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  padding: 12px 14px; margin-bottom: 12px;
}
.card h2 { margin: 0 0 8px; font-size: 15px; }
.card h3 {
  margin: 10px 0 4px; font-size: 13px; color: var(--muted);
  text-transform: uppercase; letter-spacing: .04em;
}
pre {
  white-space: pre-wrap; word-break: break-word; margin: 0;
  font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace;
  background: #f3f4f6; padding: 8px; border-radius: 6px; max-height: 28em; overflow: auto;
}
.chain li, .checks li { margin: 2px 0; }
.ok { color: var(--ok); font-weight: 600; }
.bad { color: var(--bad); font-weight: 600; }
.na { color: var(--muted); }
.action { font-size: 18px; font-weight: 700; }
.sub { color: var(--muted); font-size: 13px; }
details summary { cursor: pointer; color: var(--muted); font-size: 13px; }
.prompt-image { max-width: 260px; border: 1px solid var(--line); border-radius: 6px; margin-top: 6px; }
"""

_SCRIPT = r"""
(function () {
  const data = JSON.parse(document.getElementById('session-data').textContent);
  const steps = data.steps;
  const $ = (id) => document.getElementById(id);
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  };
  const slider = $('slider');
  slider.max = String(steps.length - 1);
  function card(parent, title) {
    const c = el('div', undefined, 'card');
    if (title) c.appendChild(el('h2', title));
    parent.appendChild(c);
    return c;
  }
  function block(parent, title, text) {
    if (!text) return;
    parent.appendChild(el('h3', title));
    parent.appendChild(el('pre', text));
  }
  function list(parent, title, items, cls, fill) {
    if (!items.length) return;
    parent.appendChild(el('h3', title));
    const ul = el('ul', undefined, cls);
    for (const item of items) ul.appendChild(fill(item));
    parent.appendChild(ul);
  }
  function check(q) {
    const li = el('li');
    li.appendChild(el('span', q.mark + ' ', q.cls));
    li.appendChild(el('span', q.question + ': ' + q.answer + ' (truth: ' + q.truth + ')'));
    return li;
  }
  function decision(detail, d) {
    const c = card(detail, d.who);
    const move = d.action === null ? '(no move: the seat forfeited)' : d.action;
    c.appendChild(el('div', move, 'action'));
    c.appendChild(el('div', d.how, 'sub'));
    if (d.rationale) c.appendChild(el('div', d.rationale));
    list(c, 'Intermediate answers', d.checks, 'checks', check);
    list(c, 'Parse chain', d.chain, 'chain', (line) => el('li', line));
    block(c, 'Perception', d.perception);
    block(c, 'Reflection', d.reflection);
    block(c, 'Reasoning', d.reasoning);
    block(c, 'Answer', d.answer);
    if (d.prompt) {
      const det = el('details');
      det.appendChild(el('summary', 'Prompt as sent'));
      det.appendChild(el('pre', d.prompt));
      for (const ref of d.prompt_images) {
        const img = el('img', undefined, 'prompt-image');
        img.src = data.images[ref] || '';
        img.alt = 'Image sent with the prompt';
        det.appendChild(img);
      }
      c.appendChild(det);
    }
    if (d.usage) c.appendChild(el('div', d.usage, 'sub'));
  }
  function show(i) {
    i = Math.max(0, Math.min(steps.length - 1, i | 0));
    const s = steps[i];
    slider.value = String(i);
    $('position').textContent = s.label;
    $('board').src = data.images[s.board] || '';
    $('board').alt = 'Board at ' + s.label;
    const link = '#step=' + s.number;
    $('link').href = link;
    if (location.hash !== link) history.replaceState(null, '', link);
    const detail = $('detail');
    detail.replaceChildren();
    if (!s.decisions.length) {
      const title = s.final ? 'Final position' : 'No decision recorded';
      card(detail, title).appendChild(el('div', s.result || '', 'sub'));
    }
    for (const d of s.decisions) decision(detail, d);
  }
  function fromHash() {
    const m = /step=(\d+)/.exec(location.hash);
    return m ? Number(m[1]) - 1 : 0;
  }
  const step = (delta) => show(Number(slider.value) + delta);
  slider.addEventListener('input', () => show(Number(slider.value)));
  $('prev').addEventListener('click', () => step(-1));
  $('next').addEventListener('click', () => step(1));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowLeft') step(-1);
    if (e.key === 'ArrowRight') step(1);
    if (e.key === 'Home') show(0);
    if (e.key === 'End') show(steps.length - 1);
  });
  window.addEventListener('hashchange', () => show(fromHash()));
  show(fromHash());
  document.body.dataset.ready = 'true';
})();
"""


def _json_for_script(payload: Any) -> str:
    """JSON that cannot end its ``<script>`` element early, whatever the strings hold."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def page(title: str, meta: str, payload: dict[str, Any]) -> str:
    """The whole HTML document for a session ``payload`` (see :mod:`desktop.html_export`)."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="PlayTrace">
<title>{html.escape(title)}</title>
<style>{_STYLE}</style>
</head>
<body>
<header><h1>{html.escape(title)}</h1><div class="meta">{html.escape(meta)}</div></header>
<nav class="bar">
<button id="prev" title="Previous step (←)">◀</button>
<input id="slider" type="range" min="0" value="0" aria-label="Step">
<button id="next" title="Next step (→)">▶</button>
<strong id="position"></strong>
<a id="link" href="#step=1">link to this step</a>
</nav>
<main>
<section class="board"><img id="board" alt=""></section>
<section id="detail"></section>
</main>
<script id="session-data" type="application/json">{_json_for_script(payload)}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""
