// tabula serve: the replay viewer. Steps through a game log's decisions.
"use strict";
const $ = (id) => document.getElementById(id);
const replayId = location.pathname.split("/").filter(Boolean)[1];
let view = null;

async function show(step) {
  $("error").textContent = "";
  try {
    const r = await fetch(`/api/replays/${replayId}?step=${step}&seat=${$("seat").value}`);
    const v = await r.json();
    if (!r.ok) throw new Error(v.error || r.statusText);
    render(v);
  } catch (e) { $("error").textContent = e.message; }
}

function render(v) {
  const first = !view;
  view = v;
  if (first) for (let p = 0; p < v.players; p++) $("seat").add(new Option(`player ${p}`, String(p)));
  $("where").textContent = `decision ${v.step} of ${v.steps}`;
  $("where").dataset.step = v.step;
  $("board").innerHTML = v.svg;
  const d = $("decision");
  d.innerHTML = "";
  if (v.decision) {
    const p = document.createElement("p");
    p.textContent = `${v.decision.who === "chance" ? "chance" : "player " + v.decision.who}: ${v.decision.action}`;
    d.appendChild(p);
    const r = document.createElement("p");
    r.className = "rule";
    r.textContent = `rule ${v.decision.rule}`;
    d.appendChild(r);
    for (const key of ["source", "ruling", "description"]) {
      if (!v.decision[key]) continue;
      const q = document.createElement("p");
      q.className = key;
      q.textContent = `${key}: ${v.decision[key]}`;
      d.appendChild(q);
    }
  } else d.textContent = "the set-up";
  if (v.terminal) { const s = document.createElement("p"); s.textContent = `scores: ${v.scores.join(", ")}`; d.appendChild(s); }
  if (v.problem) { const s = document.createElement("p"); s.id = "problem"; s.textContent = v.problem; d.appendChild(s); }
  const ol = $("history");
  ol.innerHTML = "";
  v.decisions.forEach((e, i) => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "#";
    a.textContent = `${e.who === "chance" ? "chance" : "player " + e.who}: ${e.action}`;
    if (i + 1 === v.step) a.style.fontWeight = "bold";
    a.addEventListener("click", (ev) => { ev.preventDefault(); show(i + 1); });
    li.appendChild(a);
    ol.appendChild(li);
  });
  $("back").disabled = v.step === 0;
  $("forward").disabled = v.step === v.steps;
}

$("first").addEventListener("click", () => show(0));
$("back").addEventListener("click", () => show(view.step - 1));
$("forward").addEventListener("click", () => show(view.step + 1));
$("last").addEventListener("click", () => show(view.steps));
$("seat").addEventListener("change", () => show(view.step));
show(0);
