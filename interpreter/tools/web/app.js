// tabula serve: one seat's page. Draws the board the server drew for this seat, makes
// the places of the legal actions clickable, lists the actions, the rule, the history;
// asks again every second while others decide.
"use strict";
const $ = (id) => document.getElementById(id);
const table = location.pathname.split("/").filter(Boolean)[1];
const params = new URLSearchParams(location.search);
const seatParam = params.get("seat") || "";     // none: watching
const token = params.get("token") || "";         // the seat's (or the hot seat's) token
let view = null;
let filter = null;          // a clicked place: the actions that have it
let timer = null;
let shownSeat = null;       // the hot seat: the seat whose view is on the screen
const tokenQuery = `token=${encodeURIComponent(token)}`;

async function api(path, body) {
  const r = await fetch(`/api/tables/${table}${path}`, body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function seat() { return view && view.seat !== null ? view.seat : seatParam; }

async function refresh() {
  try {
    let ask = seatParam;
    if (seatParam === "hot") {          // one screen for every human: whose view is next?
      const h = await api(`/hot?${tokenQuery}`);
      if (h.hides && h.seat !== shownSeat) { handOver(h.seat); return; }
      ask = h.seat === null ? "hot" : String(h.seat);
    }
    const v = await api(`?seat=${encodeURIComponent(ask)}&${tokenQuery}`);
    if (!view || v.version !== view.version || v.seat !== view.seat) { filter = null; render(v); }
  } catch (e) { $("error").textContent = e.message; }
}

// The hot seat passes to another human in a game that hides something: nothing of the
// last seat's view stays on the screen, and the next one's is drawn when they say so.
function handOver(next) {
  clearTimeout(timer);
  view = null;
  for (const id of ["board", "actions", "rule", "vars", "history", "hinted", "error", "status"]) $(id).innerHTML = "";
  delete $("status").dataset.state;
  $("table").hidden = true;
  $("who").textContent = "";
  $("handover-text").textContent = `Pass the screen to player ${next}.`;
  $("handover-ready").textContent = `I am player ${next}: show my view`;
  $("handover").dataset.seat = next;
  $("handover").hidden = false;
  document.body.dataset.handover = next;
}

$("handover-ready").addEventListener("click", () => {
  shownSeat = parseInt($("handover").dataset.seat, 10);
  $("handover").hidden = true;
  $("table").hidden = false;
  delete document.body.dataset.handover;
  refresh();
});

async function act(index) {
  $("error").textContent = "";
  try {
    const v = await api("/act", {seat: seat(), token, index, version: view.version});
    if (seatParam === "hot") await refresh();    // the next human's turn, maybe handed over
    else render(v);
  } catch (e) { $("error").textContent = e.message; await refresh(); }
}

function render(v) {
  view = v;
  document.body.dataset.version = v.version;
  $("title").textContent = v.game;
  $("who").textContent = v.seat === null ? "watching" : `player ${v.seat}`;
  $("board").innerHTML = v.svg;
  $("status").textContent = v.terminal
    ? `The game is over. Scores: ${v.scores.join(", ")}; winners: ${v.winners.map((p) => "player " + p).join(", ")}`
    : v.status;
  $("status").dataset.state = v.terminal ? "over" : (v.actions.length ? "deciding" : "waiting");
  $("undo").disabled = !v.undo;
  $("hint").disabled = !v.actions.length;
  $("hinted").textContent = "";
  drawRule(v.rule);
  drawVars(v);
  drawHistory(v.history || []);
  drawActions();
  clearTimeout(timer);
  if (!v.terminal && !v.actions.length) timer = setTimeout(refresh, 1000);
}

function drawRule(rule) {
  const box = $("rule");
  box.innerHTML = "";
  if (!rule) { box.textContent = "-"; return; }
  const id = document.createElement("b");
  id.textContent = rule.id;
  box.appendChild(id);
  for (const key of ["source", "ruling", "description"]) {
    if (!rule[key]) continue;
    const p = document.createElement("p");
    p.className = key;
    p.textContent = `${key}: ${rule[key]}`;
    box.appendChild(p);
  }
}

function drawVars(v) {
  const rows = [];
  for (const [k, x] of Object.entries(v.variables || {})) rows.push([k, JSON.stringify(x)]);
  for (const [k, per] of Object.entries(v.player_variables || {}))
    for (const [p, x] of Object.entries(per)) rows.push([`${k} (player ${p})`, JSON.stringify(x)]);
  const t = document.createElement("table");
  t.className = "vars";
  for (const [k, x] of rows) {
    const tr = t.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = x;
  }
  $("vars").innerHTML = "";
  $("vars").appendChild(t);
}

function drawHistory(history) {
  const ol = $("history");
  ol.innerHTML = "";
  for (const e of history) {
    const li = document.createElement("li");
    li.textContent = `${e.who}: ${e.action}` + (e.pending ? " (not yet revealed)" : "");
    if (e.action === "(hidden)") li.className = "hidden";
    li.title = e.rule;
    ol.appendChild(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

function drawActions() {
  const box = $("actions");
  box.innerHTML = "";
  const svg = $("board");
  for (const el of svg.querySelectorAll(".target")) el.classList.remove("target", "chosen");
  const shown = view.actions.filter((a) => !filter || filter.includes(a.index));
  for (const a of view.actions) {
    for (const s of a.slots) {
      const el = svg.querySelector(`.slot[data-slot="${s}"]`);
      if (el) el.classList.add("target");
    }
    for (const p of a.pieces) {
      const el = svg.querySelector(`.piece[data-piece="${p}"]`);
      if (el) el.classList.add("target");
    }
  }
  if (filter) {
    const all = document.createElement("button");
    all.textContent = "show every choice";
    all.addEventListener("click", () => { filter = null; drawActions(); });
    box.appendChild(all);
  }
  for (const a of shown) {
    const b = document.createElement("button");
    b.className = "action";
    b.textContent = `${a.index + 1}. ${a.text}`;
    b.dataset.index = a.index;
    b.addEventListener("click", () => act(a.index));
    box.appendChild(b);
  }
  if (!view.actions.length) box.textContent = view.terminal ? "-" : "(not your decision)";
}

function clicked(kind, id) {
  const key = kind === "slot" ? "slots" : "pieces";
  const hits = view.actions.filter((a) => a[key].includes(id));
  if (hits.length === 1) { act(hits[0].index); return; }
  if (hits.length) { filter = hits.map((a) => a.index); drawActions(); }
}

$("board").addEventListener("click", (ev) => {
  if (!view || !view.actions.length) return;
  const piece = ev.target.closest(".piece.target");
  if (piece) { clicked("piece", parseInt(piece.dataset.piece, 10)); return; }
  const slot = ev.target.closest(".slot.target");
  if (slot) clicked("slot", parseInt(slot.dataset.slot, 10));
});
$("undo").addEventListener("click", async () => {
  try {
    const v = await api("/undo", {seat: seat(), token});
    if (seatParam === "hot") await refresh(); else render(v);
  } catch (e) { $("error").textContent = e.message; }
});
$("hint").addEventListener("click", async () => {
  try {
    const h = await api(`/hint?seat=${seat()}&${tokenQuery}`);
    if (!view || h.version !== view.version) return;     // the game moved on meanwhile
    $("hinted").textContent = `${h.bot} would choose ${h.index + 1}. ${h.action}`;
  } catch (e) { $("error").textContent = e.message; }
});
refresh();
