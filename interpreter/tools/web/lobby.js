// tabula serve: the lobby. Chooses a game, its options and seats; starts a table.
"use strict";
const $ = (id) => document.getElementById(id);
let bots = ["human", "random"];

async function api(path, body) {
  const r = await fetch("/api/" + path, body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function gameName() { return $("path").value.trim() || $("game").value; }

function drawSeats() {
  const n = parseInt($("players").value, 10) || 0;
  const box = $("seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.innerHTML = "";
  for (let p = 0; p < n; p++) {
    const label = document.createElement("label");
    label.textContent = `seat ${p} `;
    const sel = document.createElement("select");
    sel.className = "seat";
    for (const b of bots) sel.add(new Option(b, b));
    sel.value = old[p] || (p === 0 ? "human" : "random");
    label.appendChild(sel);
    box.appendChild(label);
  }
}

async function loadGame() {
  $("error").textContent = "";
  $("start").disabled = true;             // until the game's options and seats are drawn
  delete document.body.dataset.game;
  try {
    const info = await api("game?name=" + encodeURIComponent(gameName()));
    $("players").min = info.players[0];
    $("players").max = info.players[1];
    $("players").value = info.players[0];
    const box = $("options");
    box.innerHTML = "";
    for (const [name, o] of Object.entries(info.options)) {
      const label = document.createElement("label");
      label.textContent = name + " ";
      let input;
      if (o.choices && o.choices.length) {
        input = document.createElement("select");
        for (const c of o.choices) input.add(new Option(String(c), String(c)));
      } else {
        input = document.createElement("input");
      }
      input.value = o.default === null ? "" : String(o.default);
      input.dataset.option = name;
      label.appendChild(input);
      box.appendChild(label);
    }
    drawSeats();
    $("start").disabled = false;
    document.body.dataset.game = gameName();
  } catch (e) { $("error").textContent = e.message; }
}

async function start() {
  $("error").textContent = "";
  const options = {};
  for (const el of document.querySelectorAll("[data-option]")) options[el.dataset.option] = el.value;
  const seats = [...document.querySelectorAll("select.seat")].map((s) => s.value);
  if (!seats.includes("human")) {          // bots alone: watch their game step by step
    const q = new URLSearchParams({spec: gameName(), players: seats.length,
                                   seed: $("seed").value.trim() || String(Math.floor(Math.random() * 1e6)),
                                   agents: seats.join(",")});
    for (const [k, v] of Object.entries(options)) if (v !== "") q.append("option", `${k}=${v}`);
    location.href = "/replay?" + q.toString();
    return;
  }
  try {
    const t = await api("tables", {game: gameName(), players: seats.length, options, seats,
                                   seed: $("seed").value.trim() || null});
    const links = $("links");
    links.innerHTML = "";
    // each seat's page is opened by its link alone (its token): give each player theirs
    const add = (id, href, text) => {
      const a = document.createElement("a");
      a.id = id;
      a.href = href;
      a.textContent = text;
      const li = document.createElement("li");
      li.appendChild(a);
      links.appendChild(li);
    };
    for (const p of t.humans) add(`seat-link-${p}`, t.links[String(p)], `player ${p}'s page (only for player ${p})`);
    if (t.hot) add("hot-link", t.hot, "hot seat (one screen for all)");
    if (!t.humans.length) add("watch-link", `/play/${t.id}`, "watch");
  } catch (e) { $("error").textContent = e.message; }
}

async function replay() {
  try {
    const r = await api("replays", {path: $("log").value.trim()});
    location.href = `/replay/${r.id}`;
  } catch (e) { $("error").textContent = e.message; }
}

(async function init() {
  const g = await api("games");
  bots = g.bots;
  for (const name of g.games) $("game").add(new Option(name, name));
  $("game").addEventListener("change", () => { $("path").value = ""; loadGame(); });
  $("path").addEventListener("change", loadGame);
  $("players").addEventListener("change", drawSeats);
  $("start").addEventListener("click", start);
  $("replay").addEventListener("click", replay);
  if (g.games.includes("tiny")) $("game").value = "tiny";
  await loadGame();
})();
