// cavekit serve: the pages' script. No dependencies, no build step. The server renders the pages and the
// boards; this script builds the new-game form from the catalogue, keeps a play page in step with the
// server (polling its view while someone else moves), and sends clicks as JSON requests.
"use strict";

function $(id) { return document.getElementById(id); }

function jsonOf(id) {
  const element = $(id);
  return element ? JSON.parse(element.textContent) : null;
}

function make(tag, attributes, text) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) element.setAttribute(name, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

async function send(method, url, body, headers) {
  const options = { method: method, headers: Object.assign({}, headers || {}), credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = { error: "the server sent no JSON" }; }
  if (!response.ok) throw new Error((data && data.error) || ("HTTP " + response.status));
  return data;
}

function showMessage(text) {
  const box = $("message");
  if (box) box.textContent = text || "";
}

// ---------------------------------------------------------------- home page: new game and load

function homePage() {
  const catalogue = jsonOf("catalogue");
  const gameSelect = $("game"), playersSelect = $("players");
  for (const game of catalogue) {
    const option = make("option", { value: game.name }, game.title);
    if (game.default) option.selected = true;
    gameSelect.appendChild(option);
  }
  const current = () => catalogue.find((g) => g.name === gameSelect.value);

  function fillPlayers() {
    const game = current();
    playersSelect.textContent = "";
    for (const n of game.players) {
      const option = make("option", { value: String(n) }, String(n));
      if (n === game.default_players) option.selected = true;
      playersSelect.appendChild(option);
    }
    fillParams();
    fillSeats();
  }

  function fillSeats() {
    const game = current(), players = Number(playersSelect.value);
    const box = $("seats");
    box.querySelectorAll("label").forEach((l) => l.remove());
    const presets = game.presets[players] || {};
    for (let seat = 0; seat < players; seat++) {
      const label = make("label", {}, "player " + seat + " ");
      const select = make("select", { name: "seat" + seat, id: "seat" + seat, "data-seat": String(seat) });
      select.appendChild(make("option", { value: "human" }, "person"));
      for (const difficulty of game.difficulties) {
        const option = make("option", { value: difficulty },
                            "AI: " + difficulty + (presets[difficulty] ? " (" + presets[difficulty] + ")" : ""));
        if (seat > 0 && difficulty === "easy") option.selected = true;
        select.appendChild(option);
      }
      label.appendChild(select);
      box.appendChild(label);
    }
  }

  function fillParams() {
    const box = $("params");
    box.textContent = "";
    for (const param of current().params) {
      const label = make("label", { class: "param" }, param.name + " ");
      let input;
      const simple = param.choices.length > 0 && param.choices.every((c) => typeof c !== "object");
      if (simple) {
        input = make("select", { "data-param": param.name });
        param.choices.forEach((choice, k) => {
          const option = make("option", { value: String(k) }, String(choice));
          if (JSON.stringify(choice) === JSON.stringify(param.default)) option.selected = true;
          input.appendChild(option);
        });
      } else {
        input = make("input", { "data-param": param.name, "data-json": "1", value: JSON.stringify(param.default),
                                title: param.allowed, size: "18" });
      }
      label.appendChild(input);
      box.appendChild(label);
    }
  }

  function request() {
    const game = current();
    const seats = [];
    $("seats").querySelectorAll("select").forEach((s) => seats.push(s.value));
    const params = {};
    $("params").querySelectorAll("[data-param]").forEach((input) => {
      const param = game.params.find((p) => p.name === input.dataset.param);
      let value;
      if (input.dataset.json) {
        try { value = JSON.parse(input.value); } catch (e) { value = input.value; }
      } else {
        value = param.choices[Number(input.value)];
      }
      if (JSON.stringify(value) !== JSON.stringify(param.default)) params[param.name] = value;
    });
    const body = { game: game.name, players: Number(playersSelect.value), seats: seats, params: params };
    if ($("seed").value !== "") body.seed = Number($("seed").value);
    return body;
  }

  gameSelect.addEventListener("change", fillPlayers);
  playersSelect.addEventListener("change", fillSeats);
  // The creator's browser has joined the first human seat; the other seats' invitations are shown here,
  // once (no page shows them again), to be passed on.
  function started(created) {
    const others = created.seats.filter((s) => s.index !== created.seat);
    if (others.length === 0) { window.location.href = created.url; return; }
    const list = $("invitation-list");
    list.textContent = "";
    for (const seat of others) {
      const link = new URL(seat.invitation, window.location.href).href;
      const item = make("li", { "data-seat": String(seat.index) }, "player " + seat.index + ": ");
      item.appendChild(make("input", { class: "invitation", readonly: "", size: "70", value: link }));
      list.appendChild(item);
    }
    $("my-seat").href = created.url;
    $("my-seat").textContent = "Go to your seat (player " + created.seat + ")";
    $("invitations").hidden = false;
    $("new-game-form").hidden = true;
  }

  $("new-game-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      started(await send("POST", "/api/games", request()));
    } catch (error) { showMessage(error.message); }
  });
  $("load-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = $("record-file").files[0];
    if (!file) { showMessage("choose a saved record first"); return; }
    const body = request();
    delete body.game;       // the record says which game it is, and its options
    delete body.params;
    delete body.players;
    body.record = await file.text();
    try {
      let record = JSON.parse(body.record);
      if (record.params && record.params.players && record.params.players !== body.seats.length) {
        showMessage("the record is of a " + record.params.players + "-player game: choose that many players");
        return;
      }
      started(await send("POST", "/api/games", body));
    } catch (error) { showMessage(error.message); }
  });
  fillPlayers();
}

// ---------------------------------------------------------------- invitation: join the seat, then play

async function joinPage() {
  const config = jsonOf("config");
  const key = decodeURIComponent(window.location.hash.slice(1));
  // the key leaves the address at once (history, bookmarks and screenshots never keep it)
  history.replaceState(null, "", window.location.pathname);
  if (!key) { showMessage("This invitation link has no key: ask for the whole link."); return; }
  try {
    const joined = await send("POST", config.join_url, undefined, { "X-Cavekit-Key": key });
    window.location.replace(joined.url);
  } catch (error) { showMessage(error.message); }
}

// ---------------------------------------------------------------- play page

function playPage() {
  const config = jsonOf("config");
  let view = jsonOf("initial-view");
  let polling = null;
  let busy = false;
  let textShown = false;      // the text panel starts open where it carries what the board does not

  function render() {
    document.body.dataset.version = String(view.version);
    $("status").textContent = view.status;
    $("status").dataset.toMove = String(view.to_move);
    $("thinking").hidden = !view.thinking;
    $("ai-time").textContent = view.ai_seconds === null ? "" : "last AI move: " + view.ai_seconds.toFixed(2) + " s";
    if (view.ai_error) showMessage(view.ai_error);
    $("board").innerHTML = view.board || "";
    $("text").textContent = view.text;
    if (!textShown) { $("text-panel").open = view.show_text; textShown = true; }
    const list = $("actions");
    list.textContent = "";
    for (const action of view.actions) {
      const item = make("li");
      const button = make("button", { class: "action", "data-action": String(action.id) }, action.text);
      item.appendChild(button);
      list.appendChild(item);
    }
    $("filter-note").textContent = view.your_turn ? "Click a move, or a highlighted part of the board." :
      (view.result ? "" : "(not your turn)");
    $("board").querySelectorAll("[data-target]").forEach((element) => element.classList.add("clickable"));
    const seats = $("seats");
    seats.textContent = "";
    for (const seat of view.seats) {
      const item = make("li", { "data-seat": String(seat.index) },
                        seat.label + (seat.index === view.seat ? " - you" : "") + (view.scores ?
                        ": " + view.scores[seat.index] + " points" : ""));
      if (seat.index === view.to_move) item.classList.add("to-move");
      seats.appendChild(item);
    }
    const log = $("log");
    log.textContent = "";
    const first = view.history_length - view.log.length;
    view.log.forEach((entry, k) => {
      const who = entry.player === -1 ? "chance" : "player " + entry.player;
      log.appendChild(make("li", { value: String(first + k + 1) }, who + ": " + entry.text));
    });
    log.scrollTop = log.scrollHeight;
    $("undo").disabled = !view.can_undo || view.thinking;
    $("hint").disabled = !view.your_turn;
    $("save").hidden = !view.can_save;
    renderResult();
    const waiting = !view.result && !view.your_turn;
    if (waiting && polling === null) polling = setInterval(refresh, 400);
    if (!waiting && polling !== null) { clearInterval(polling); polling = null; }
  }

  function renderResult() {
    const box = $("result");
    box.textContent = "";
    if (!view.result) return;
    box.appendChild(make("h3", {}, "Game over: " + view.result.verdict));
    box.appendChild(make("p", { id: "final-scores" }, "Final scores: " +
      view.result.scores.map((s, p) => "player " + p + " " + s).join(", ")));
    const table = make("table", { id: "breakdown" });
    const head = make("tr");
    ["player", "source", "points"].forEach((h) => head.appendChild(make("th", {}, h)));
    table.appendChild(head);
    for (const row of view.result.breakdown) {
      const tr = make("tr", row.source === "total" ? { class: "total" } : {});
      [row.player, row.source, row.points].forEach((v) => tr.appendChild(make("td", {}, String(v))));
      table.appendChild(tr);
    }
    box.appendChild(table);
  }

  async function refresh() {
    if (busy) return;
    try {
      const fresh = await send("GET", config.view_url);
      if (fresh.version !== view.version || fresh.thinking !== view.thinking) { view = fresh; render(); }
    } catch (error) { showMessage(error.message); }
  }

  async function play(action) {
    if (busy) return;
    busy = true;
    showMessage("");
    $("hint-box").textContent = "";
    try {
      view = await send("POST", config.action_url, { action: action, version: view.version });
    } catch (error) { showMessage(error.message); }
    busy = false;
    render();
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button.action");
    if (button) { play(Number(button.dataset.action)); return; }
    const target = event.target.closest("#board [data-target]");
    if (!target || !view.your_turn) return;
    const ids = view.targets[target.dataset.target] || [];
    if (ids.length === 1) { play(ids[0]); return; }
    document.querySelectorAll("button.action").forEach((b) => {
      b.parentElement.hidden = !ids.includes(Number(b.dataset.action));
    });
    $("filter-note").textContent = ids.length + " moves use this; click one (or click elsewhere on the board " +
      "to see them all).";
  });
  $("board").addEventListener("click", (event) => {
    if (!event.target.closest("[data-target]")) {
      document.querySelectorAll("#actions li").forEach((li) => { li.hidden = false; });
    }
  });
  $("undo").addEventListener("click", async () => {
    try { view = await send("POST", config.undo_url); showMessage(view.message); } catch (e) { showMessage(e.message); }
    render();
  });
  $("hint").addEventListener("click", async () => {
    const box = $("hint-box");
    box.textContent = "thinking...";
    try {
      const hint = await send("POST", config.hint_url, { count: 5 });
      box.textContent = "";
      box.appendChild(make("p", {}, "Hint from " + hint.budget + "; value = its estimate of " + hint.scale + ":"));
      const table = make("table", { id: "hint-table" });
      const head = make("tr");
      const counted = hint.rows.some((row) => row.visits !== undefined);
      const columns = ["no.", "move", "value"].concat(counted ? ["visits"] : []);
      columns.forEach((h) => head.appendChild(make("th", {}, h)));
      table.appendChild(head);
      for (const row of hint.rows) {
        const tr = make("tr", { "data-action": String(row.action) });
        const cells = [row.number, row.text, row.value_text];
        if (counted) cells.push(row.visits === undefined ? "" : row.visits + " (" + row.visit_share.toFixed(0) + "%)");
        cells.forEach((v) => tr.appendChild(make("td", {}, String(v))));
        table.appendChild(tr);
      }
      box.appendChild(table);
      if (hint.more) box.appendChild(make("p", { class: "note" }, "(" + hint.more + " more options)"));
    } catch (error) { box.textContent = error.message; }
  });
  render();
}

// ---------------------------------------------------------------- replay page: arrow keys step

function replayPage() {
  document.addEventListener("keydown", (event) => {
    const ids = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last", PageUp: "prev-turn",
                  PageDown: "next-turn" };
    const link = ids[event.key] && $(ids[event.key]);
    if (link && link.href) window.location.href = link.href;
  });
}

document.addEventListener("DOMContentLoaded", () => {
  if (document.body.classList.contains("home")) homePage();
  else if (document.body.classList.contains("play")) playPage();
  else if (document.body.classList.contains("join")) joinPage();
  else if (document.body.classList.contains("replay")) replayPage();
});
