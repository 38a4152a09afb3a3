// Netzwerk Companion: the page. Live updates by server-sent events (/api/events); no reloads, no outside files.
"use strict";

const $ = (id) => document.getElementById(id);
let config = { controls: false, setup: false, options: [] };
let current = null;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function side(name) { return name ? name.charAt(0).toUpperCase() + name.slice(1) : ""; }

// ---- views (#live, #games, #setup) -------------------------------------------------------
function showView() {
  const name = (location.hash || "#live").slice(1);
  const known = ["live", "games", "setup"].includes(name) ? name : "live";
  for (const v of ["live", "games", "setup"]) $("view-" + v).hidden = v !== known;
  document.querySelectorAll("header nav a").forEach((a) => a.classList.toggle("on", a.dataset.view === known));
  if (known === "games") loadGames();
}
window.addEventListener("hashchange", showView);

// ---- the live game -------------------------------------------------------------------------
function render(s) {
  current = s;
  const board = $("board");
  board.innerHTML = s.board_svg;  // drawn by the server from the referee's position
  board.dataset.position = s.position;
  board.dataset.ply = String(s.ply);
  board.dataset.seq = String(s.seq);
  const res = $("result");
  if (s.result) {
    res.hidden = false;
    res.textContent = side(s.result) + " wins" + (s.reason ? ": " + s.reason : "");
  } else {
    res.hidden = true;
  }
  let turn;
  if (s.result) turn = "Game " + (s.game_id ?? "") + " is over";
  else if (s.phase === "setup") turn = "Setting up the camera";
  else if (s.phase === "check") turn = "Checking the board";
  else turn = side(s.to_move) + " to move" + (s.game_id ? " — game " + s.game_id + ", turn " + (s.ply + 1) : "");
  $("turn").textContent = turn;
  $("status").textContent = s.status;
  const confirm = $("confirm-button");  // for the player to move: none once the game is over
  confirm.disabled = !s.to_move;
  confirm.textContent = s.to_move ? "Confirm " + side(s.to_move) + "'s turn" : "Confirm the turn";

  const v = s.last_verdict;
  const badge = $("verdict");
  badge.className = "verdict " + (v ? v.kind : "none");
  badge.textContent = v ? v.kind : "none yet";
  $("verdict-text").textContent = v ? (v.ply ? "turn " + v.ply + ": " : "") + v.diagnosis : "";
  $("verdict-note").hidden = !(v && v.note);
  $("verdict-note").textContent = v && v.note ? v.note : "";
  const where = v ? v.squares.concat(v.points) : [];
  $("verdict-where").textContent = where.length ? "pointer: " + where.join(" ") : "";

  const energy = $("energy");
  energy.replaceChildren(...s.energy.map((r) => el("li", r.square + ": " + r.energy)));
  if (!s.energy.length) energy.replaceChildren(el("li", "—"));

  const turns = $("turns");
  turns.replaceChildren(...s.turns.map((t) => el("li", side(t.side) + ": " + t.turn)));
  turns.scrollTop = turns.scrollHeight;

  $("log").replaceChildren(...s.log.slice().reverse().map((e) => {
    const li = el("li");
    li.append(el("span", e.kind, "kind"), document.createTextNode(" " + e.text));
    return li;
  }));
  if (hintFor && hintFor !== s.position) clearHint();
}

// The server ends the stream with "event: bye" when it stops on purpose (`netzwerk run` stopped, the demo
// ended): the page keeps the last state, says so, and looks quietly every 5 s whether the companion is back.
// Without a bye (a crash, the network gone) the browser reconnects by itself: "reconnecting…".
const RETRY_MS = 5000;
let stopped = false;

function connect() {
  const link = $("link");
  const source = new EventSource("/api/events");
  const live = () => {
    link.textContent = "live";
    link.className = "link up";
    stopped = false;
    $("gone").hidden = true;
  };
  source.onopen = live;
  source.addEventListener("state", (ev) => {
    live();
    render(JSON.parse(ev.data));
  });
  source.addEventListener("bye", (ev) => {
    source.close();  // no reconnecting: the companion stopped on purpose
    let reason = "the companion has stopped";
    try { reason = JSON.parse(ev.data).reason || reason; } catch (e) { /* the default */ }
    companionStopped(reason);
  });
  source.onerror = () => {
    if (stopped) return;
    link.textContent = "reconnecting…";
    link.className = "link";
    if (source.readyState === EventSource.CLOSED) {
      // refused (too many browsers, or the server went away): try again later, meanwhile one state
      setTimeout(connect, RETRY_MS);
      fetch("/api/state").then((r) => (r.ok ? r.json() : null)).then((s) => s && render(s)).catch(() => {});
    }
  };
}

function companionStopped(reason) {
  stopped = true;
  const link = $("link");
  link.textContent = "stopped";
  link.className = "link down";
  const gone = $("gone");
  gone.textContent = reason.charAt(0).toUpperCase() + reason.slice(1) +
    ": the page shows its last state, and follows the game again when the companion is back.";
  gone.hidden = false;
  setTimeout(lookForTheCompanion, RETRY_MS);
}

function lookForTheCompanion() {  // quietly: the page keeps saying "stopped" until the server answers
  fetch("/api/config", { cache: "no-store" })
    .then((r) => { if (r.ok) connect(); else setTimeout(lookForTheCompanion, RETRY_MS); })
    .catch(() => setTimeout(lookForTheCompanion, RETRY_MS));
}

// ---- hint on request ----------------------------------------------------------------------------
let hintFor = null;
function clearHint() { hintFor = null; $("hint-text").textContent = ""; $("hint-board").innerHTML = ""; }
async function askHint() {
  const text = $("hint-text");
  text.textContent = "thinking…";
  try {
    const r = await fetch("/api/hint", { method: "POST" });
    const h = await r.json();
    if (!r.ok || !h.turn) { text.textContent = h.error || h.reason || "no hint"; return; }
    hintFor = current ? current.position : null;
    text.textContent = side(h.side) + " could play " + h.turn + " (" + h.reason + ")";
    $("hint-board").innerHTML = h.board_svg;
  } catch (e) {
    text.textContent = "no hint: the server did not answer";
  }
}

// ---- controls (POST with the passphrase) -----------------------------------------------------
async function post(url, body, passField) {
  const payload = Object.assign({ passphrase: $(passField).value }, body);
  const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload) });
  return r;
}

async function control(url, body) {
  const msg = $("control-msg");
  msg.className = "msg";
  msg.textContent = "…";
  try {
    const r = await post(url, body, "passphrase");
    const data = await r.json();
    msg.className = r.ok ? "msg" : "msg bad";
    msg.textContent = r.ok ? "sent: " + data.sent : data.error;
  } catch (e) {
    msg.className = "msg bad";
    msg.textContent = "the server did not answer";
  }
}

function setupControls() {
  $("controls").hidden = !config.controls;
  $("pass-card").hidden = !config.controls;
  $("nav-setup").hidden = !config.setup;
  const box = $("new-options");
  box.replaceChildren(...config.options.map((name) => {
    const label = el("label");
    const input = el("input");
    input.type = "checkbox";
    input.value = name;
    label.append(input, document.createTextNode(" " + name));
    return label;
  }));
  $("confirm-button").onclick = () => control("/api/control/confirm", { side: current ? current.to_move : null });
  $("undo-button").onclick = () => control("/api/control/undo", {});
  $("new-game-button").onclick = () => {
    const options = Array.from(box.querySelectorAll("input:checked")).map((i) => i.value);
    const starting = document.querySelector("input[name=starting]:checked").value;
    control("/api/control/new-game", { options: options, starting_side: starting });
  };
}

// ---- the journal's games ----------------------------------------------------------------------
async function loadGames() {
  const list = $("games");
  const msg = $("games-msg");
  msg.textContent = "";
  try {
    const r = await fetch("/api/games");
    const games = await r.json();
    if (!r.ok) { msg.textContent = games.error; msg.className = "msg bad"; return; }
    if (!games.length) { list.replaceChildren(el("li", "no games in the journal yet")); return; }
    list.replaceChildren(...games.map((g) => {
      const li = el("li");
      li.dataset.game = String(g.id);
      const outcome = g.damaged ? g.damaged : g.status === "ongoing" ? "ongoing" : g.result || "";
      li.append(el("strong", "#" + g.id), el("span", (g.started || "").slice(0, 16).replace("T", " ")),
                el("span", (g.rules.length ? g.rules.join(" ") : "original") + (g.demo ? " (demo)" : "")),
                el("span", g.turns + " turns"), el("span", outcome));
      if (!g.damaged) {
        const b = el("button", "Replay");
        b.type = "button";
        b.onclick = () => openReplay(g.id);
        const a = el("a", "Download");
        a.href = "/api/games/" + g.id + "/record";
        a.setAttribute("download", "netzwerk-game-" + g.id + ".txt");
        li.append(b, a);
      }
      return li;
    }));
  } catch (e) {
    msg.textContent = "the server did not answer";
    msg.className = "msg bad";
  }
}

const replay = { id: null, ply: 0, plies: 0 };
async function openReplay(id) {
  replay.id = id;
  $("replay").hidden = false;
  $("replay-title").textContent = "Game " + id;
  $("replay-download").href = "/api/games/" + id + "/record";
  $("replay-download").setAttribute("download", "netzwerk-game-" + id + ".txt");
  await showPly(0);
}
async function showPly(n) {
  if (replay.id === null) return;
  const r = await fetch("/api/games/" + replay.id + "/ply/" + n);
  const p = await r.json();
  if (!r.ok) { $("replay-turn").textContent = p.error; return; }
  replay.ply = p.ply;
  replay.plies = p.plies;
  $("replay-ply").textContent = "turn " + p.ply + " of " + p.plies;
  $("replay-turn").textContent = p.turn ? side(p.side === "w" ? "white" : "black") + ": " + p.turn : "the start";
  const board = $("replay-board");
  board.innerHTML = p.board_svg;
  board.dataset.position = p.position;
  board.dataset.ply = String(p.ply);
}

// ---- the camera's setup view --------------------------------------------------------------------
let setupUrl = null;
async function showCamera() {
  const msg = $("setup-msg");
  msg.className = "msg";
  msg.textContent = "…";
  try {
    const r = await post("/api/setup/frame", {}, "setup-passphrase");
    if (!r.ok) { const e = await r.json(); msg.className = "msg bad"; msg.textContent = e.error; return; }
    const blob = await r.blob();
    if (setupUrl) URL.revokeObjectURL(setupUrl);
    setupUrl = URL.createObjectURL(blob);
    $("setup-image").src = setupUrl;
    $("setup-image").hidden = false;
    msg.textContent = r.headers.get("X-Netzwerk-Reading") || "";
  } catch (e) {
    msg.className = "msg bad";
    msg.textContent = "the server did not answer";
  }
}

// ---- start ---------------------------------------------------------------------------------------
async function start() {
  try {
    const r = await fetch("/api/config");
    if (r.ok) config = await r.json();
  } catch (e) { /* the defaults: no controls */ }
  setupControls();
  $("hint-button").onclick = askHint;
  $("games-refresh").onclick = loadGames;
  $("replay-first").onclick = () => showPly(0);
  $("replay-prev").onclick = () => showPly(Math.max(0, replay.ply - 1));
  $("replay-next").onclick = () => showPly(Math.min(replay.plies, replay.ply + 1));
  $("replay-last").onclick = () => showPly(replay.plies);
  $("setup-button").onclick = showCamera;
  showView();
  connect();
}
document.addEventListener("DOMContentLoaded", start);
