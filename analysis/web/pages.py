"""The server-rendered HTML pages of `cavekit serve`: home (new game, load, replays), play, replay list, replay.

Pages are plain HTML with the package's own small script (`data/app.js`) and style sheet (`data/style.css`);
every value written into a page is escaped, and data a script needs travels as JSON in a
`<script type="application/json">` element (with `<` escaped, so no text can close it).
"""
from __future__ import annotations

import json
from html import escape
from typing import Any
from urllib.parse import quote, urlencode


def json_block(element_id: str, data: Any) -> str:
    """`data` as a JSON script element a page's script reads (never executed as script)."""
    text = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def page(title: str, body: str, page_kind: str) -> str:
    """A whole HTML document."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{escape(title)}</title>"
            "<link rel=\"stylesheet\" href=\"/static/style.css\"></head>"
            f"<body class=\"{page_kind}\"><header><a href=\"/\" class=\"home\">cavekit</a> "
            f"<span>{escape(title)}</span></header><main>{body}</main>"
            "<script src=\"/static/app.js\"></script></body></html>\n")


def error_page(status: int, message: str) -> str:
    return page(f"Error {status}", f'<p class="error" id="error">{escape(message)}</p><p><a href="/">Home</a></p>',
                "error")


def home_page(catalogue: list[dict[str, Any]], folders: list[str], roots: list[str]) -> str:
    """New game form (built by the script from the catalogue), load a record, and the replays found."""
    found = "".join(f'<li><a href="/replay?{urlencode({"folder": f})}">{escape(f)}</a></li>' for f in folders)
    body = f"""
<section id="new-game"><h2>New game</h2>
<form id="new-game-form">
  <label>Game <select name="game" id="game"></select></label>
  <label>Players <select name="players" id="players"></select></label>
  <label>Seed <input name="seed" id="seed" type="number" min="0" placeholder="random"></label>
  <fieldset id="seats"><legend>Seats</legend></fieldset>
  <details id="variants"><summary>Variants (rule options)</summary><div id="params"></div></details>
  <p><button type="submit" id="start">Start game</button></p>
</form>
<h3>Continue a saved game</h3>
<form id="load-form">
  <input type="file" id="record-file" accept=".json,application/json">
  <button type="submit" id="load">Load record</button>
  <span class="note">(the seats above play it; the game and its options come from the record)</span>
</form>
<p id="message" class="error"></p>
<div id="invitations" hidden><h3>Invitations</h3>
<p class="note">Each person at the table opens their own link (shown only now: copy them before you go on).
A link lets whoever opens it play that seat, so send each one only to its player.</p>
<ul id="invitation-list"></ul><p><a id="my-seat" href="#">Go to your seat</a></p></div>
</section>
<section id="replays"><h2>Replay stored games</h2>
<form action="/replay" method="get"><label>Results folder <input name="folder" size="40"
  placeholder="results/run1"></label> <button type="submit">Open</button></form>
<p class="note">Folders are read under {escape(", ".join(roots))}.</p>
<ul id="folders">{found or "<li>(no results folder found here)</li>"}</ul>
</section>
{json_block("catalogue", catalogue)}"""
    return page("Play and replay", body, "home")


def play_page(title: str, config: dict[str, Any], view: dict[str, Any]) -> str:
    """One seat's page; the script renders `view` and keeps it up to date. It holds nothing of another seat's:
    no key (the seat's own travels in its cookie), no hidden card, no seed."""
    body = f"""
<div id="top"><h2 id="status">{escape(view["status"])}</h2><span id="thinking" hidden>thinking...</span>
<span id="ai-time" class="note"></span></div>
<p id="message" class="error"></p>
<div id="layout">
 <div id="left"><div id="board">{view["board"] or ""}</div><details id="text-panel"><summary>Position as text
  </summary><pre id="text">{escape(view["text"])}</pre></details><div id="result"></div></div>
 <div id="right">
  <div id="controls"><button id="hint">Hint</button> <button id="undo">Undo</button>
   <a id="save" href="{escape(config["record_url"])}" download>Save record</a></div>
  <div id="hint-box"></div>
  <h3>Your legal moves</h3><p id="filter-note" class="note"></p><ol id="actions"></ol>
  <h3>Seats</h3><ul id="seats"></ul>
  <h3>Log</h3><ol id="log"></ol>
 </div>
</div>
{json_block("config", config)}{json_block("initial-view", view)}"""
    return page(title, body, "play")


def join_page(title: str, config: dict[str, Any]) -> str:
    """An invitation's page: the script sends the key in the address's fragment to the server (which sets this
    seat's cookie), removes it from the address and opens the seat's page."""
    body = f"""<p id="message">Joining the game...</p>
<noscript><p class="error">Joining a game needs JavaScript.</p></noscript>
{json_block("config", config)}"""
    return page(title, body, "join")


def replay_list_page(folder: str, manifest: dict[str, Any], games: list[dict[str, Any]],
                     damaged: list[dict[str, Any]] = ()) -> str:
    """The games of a results folder, each linked to its replay, and the stored games too damaged to replay."""
    rows = []
    for g in games:
        link = f"/replay/{g['game']}?{urlencode({'folder': folder})}"
        winner = "draw" if g["winner"] < 0 and len(g["scores"]) > 1 else ("-" if g["winner"] < 0 else
                                                                         f"player {g['winner']}")
        rows.append(f'<tr><td><a href="{escape(link)}">game {g["game"]}</a></td>'
                    f'<td>{escape(", ".join(g["agents"]))}</td><td>{escape(" - ".join(map(str, g["scores"])))}</td>'
                    f"<td>{escape(winner)}</td><td>{g['length']}</td></tr>")
    body = (f"<h2>{escape(folder)}</h2><p>{escape(manifest['game'])}, {manifest['players']} player(s), "
            f"agents {escape(', '.join(manifest['agents']))}, master seed {manifest['seed']}: "
            f"{len(games)} of {manifest['games']} games stored.</p>"
            '<table id="games"><tr><th>game</th><th>agents by seat</th><th>scores</th><th>winner</th>'
            "<th>steps</th></tr>" + "".join(rows) + "</table>")
    if damaged:
        items = "".join(f"<li>game {escape(str(d['game']))}: {escape(str(d['problem']))}</li>" for d in damaged)
        body += f'<h3>Not listed: stored games that cannot be replayed</h3><ul id="damaged">{items}</ul>'
    return page(f"Replays: {folder}", body, "replay-list")


def replay_page(folder: str, step: dict[str, Any]) -> str:
    """One position of a stored game, with links to step through it (works without the script too)."""
    base = f"/replay/{step['game']}"

    def link(target: int, text: str, element_id: str) -> str:
        target = max(0, min(step["steps"], target))
        if target == step["step"]:
            return f'<span class="disabled" id="{element_id}">{escape(text)}</span>'
        href = f"{base}?{urlencode({'folder': folder, 'step': target})}"
        return f'<a href="{escape(href)}" id="{element_id}">{escape(text)}</a>'

    nav = " ".join([link(0, "|< start", "first"), link(step["previous_turn"], "<< turn", "prev-turn"),
                    link(step["step"] - 1, "< back", "back"), link(step["step"] + 1, "forward >", "forward"),
                    link(step["next_turn"], "turn >>", "next-turn"), link(step["steps"], "end >|", "last")])
    scores = ", ".join(f"player {p} ({escape(a)}): {s}" for p, (a, s) in enumerate(zip(step["agents"], step["scores"])))
    last = step["last"]
    nxt = step["next"]
    board = step["board"] or ""
    body = f"""
<p><a href="/replay?{escape(urlencode({'folder': folder}))}">{escape(folder)}</a>: game {step['game']}</p>
<nav id="replay-nav">{nav}
<form method="get" action="{escape(base)}" id="jump"><input type="hidden" name="folder" value="{escape(folder)}">
<label>step <input type="number" name="step" min="0" max="{step['steps']}" value="{step['step']}" id="step-input"></label>
<button type="submit">Go</button></form></nav>
<p id="step" data-step="{step['step']}" data-steps="{step['steps']}">Step {step['step']} of {step['steps']}
 (decision {step['decisions_done']} of {step['decisions']})</p>
<p id="scores" data-scores="{escape(json.dumps(step['scores']))}">Score: {scores}
 (final: {escape(" - ".join(map(str, step['final_scores'])))})</p>
<p id="last-action">{"Last: " + escape(last["by"]) + ": " + escape(last["text"]) if last else "Start of the game."}</p>
<p id="next-action">{"Next: " + escape(nxt["by"]) + ": " + escape(nxt["text"]) if nxt else "Game over."}</p>
<div id="board">{board}</div>
<details id="text-panel" {"" if board else "open"}><summary>Position as text</summary><pre id="text">{escape(step['text'])}</pre></details>"""
    return page(f"Replay: game {step['game']}", body, "replay")


def replay_link(base_url: str, folder: str, game: int) -> str:
    """The address of the replay of `game` in `folder` on a server at `base_url` (for reports)."""
    return f"{base_url.rstrip('/')}/replay/{game}?folder={quote(folder)}"
